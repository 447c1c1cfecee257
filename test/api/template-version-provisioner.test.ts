import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTar } from '../../src/lib/archive/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { ProvisionerJobLog } from '../../src/sdk/wire/index.js';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('the provisioner that reads a template version', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
  });
  after(async () => test.close());

  /** Imports an archive asking for `provisioner`; returns the finished version and its log lines. */
  async function importWith(files: Record<string, string>, provisioner: 'terraform' | 'echo' | 'native') {
    const { id } = await owner.uploadFile(await createTar(files));
    const created = await owner.createTemplateVersion('default', { file_id: id, provisioner });
    const logs: string[] = [];
    await owner.followTemplateVersionLogs(created.id, (log: ProvisionerJobLog) => logs.push(log.output));
    return { version: await owner.templateVersion(created.id), logs };
  }

  it('reads a template.yaml with the native provisioner when a client asks for terraform, and says so', async () => {
    const { version, logs } = await importWith({ 'template.yaml': 'resources: []\n' }, 'terraform');
    assert.equal(version.job.status, 'succeeded', version.job.error ?? undefined);
    assert.ok(logs.includes('Reading the template with the native provisioner'), logs.join('\n'));
  });

  it('reads an echo.json with the echo provisioner when a client asks for terraform', async () => {
    const { version, logs } = await importWith({ 'echo.json': '{}' }, 'terraform');
    assert.equal(version.job.status, 'succeeded', version.job.error ?? undefined);
    assert.ok(logs.includes('Reading the template with the echo provisioner'), logs.join('\n'));
  });

  it('keeps the provisioner asked for when the archive is in its format', async () => {
    const { logs } = await importWith({ 'echo.json': '{}', 'template.yaml': 'resources: []\n' }, 'echo');
    assert.ok(logs.includes('Reading the template with the echo provisioner'), logs.join('\n'));
  });
});
