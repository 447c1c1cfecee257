import { DAEMON_STALE_MS } from '../../domain/provisioner-job-views.js';
import { PROVISIONER_API_VERSION, VERSION } from '../../lib/version.js';
import type { HealthMessage, ProvisionerDaemonsReport } from '../../sdk/wire/index.js';
import type { AuthorizedStore } from '../../store/authorized-store.js';
import { toWireProvisionerDaemon } from '../convert/provisioner-daemon.js';
import { verdict } from './health-severity.js';

/** `major.minor.patch` with an optional `v` and pre-release or build suffix. */
const SEMVER = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+].*)?$/;
/** `major.minor`, as API versions are written. */
const API_VERSION = /^(\d+)\.(\d+)$/;

/**
 * The provisioner daemons seen within the stale interval, in every organization, each with its
 * findings: a version that is not semver (EUNKNOWN) or an API version that cannot be read is an
 * error; a major.minor other than the server's (EPD02) or an API major other than the server's
 * (EPD03) a warning. None at all is EPD01, an error: nothing would build a workspace.
 */
export async function checkProvisionerDaemons(store: AuthorizedStore, now: Date): Promise<ProvisionerDaemonsReport> {
  const rows = await store.deployment.listProvisionerDaemonsSeenSince(new Date(now.getTime() - DAEMON_STALE_MS));
  if (rows.length === 0) {
    // A warning by its shape but an error by its weight, as the reference reports it.
    return { items: [], ...verdict({ warnings: [{ code: 'EPD01', message: 'No active provisioner daemons found!' }], severity: 'error' }) };
  }
  const ours = SEMVER.exec(VERSION);
  const ourApi = API_VERSION.exec(PROVISIONER_API_VERSION);
  let error: HealthMessage | undefined;
  const warnings: HealthMessage[] = [];
  const items = rows.map((row) => {
    const found: HealthMessage[] = [];
    const theirs = SEMVER.exec(row.version);
    if (!theirs) {
      error ??= {
        code: 'EUNKNOWN',
        message: `Provisioner daemon "${row.name}" reports the version "${row.version}", which is not a semantic version.`,
      };
      found.push({ code: 'EUNKNOWN', message: `Version "${row.version}" is not a semantic version.` });
    } else if (ours && (theirs[1] !== ours[1] || theirs[2] !== ours[2])) {
      found.push({ code: 'EPD02', message: `Provisioner daemon "${row.name}" runs ${row.version}; the server runs ${VERSION}.` });
    }
    const theirApi = API_VERSION.exec(row.api_version);
    if (!theirApi) {
      error ??= {
        code: 'EUNKNOWN',
        message: `Provisioner daemon "${row.name}" reports the API version "${row.api_version}", which cannot be read.`,
      };
      found.push({ code: 'EUNKNOWN', message: `API version "${row.api_version}" cannot be read.` });
    } else if (ourApi && theirApi[1] !== ourApi[1]) {
      found.push({
        code: 'EPD03',
        message: `Provisioner daemon "${row.name}" speaks API ${row.api_version}; the server speaks ${PROVISIONER_API_VERSION}.`,
      });
    }
    warnings.push(...found.filter((message) => message.code !== 'EUNKNOWN'));
    return { provisioner_daemon: toWireProvisionerDaemon(row, now), warnings: found };
  });
  return { items, ...verdict({ warnings, error }) };
}
