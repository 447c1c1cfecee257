import { randomBytes } from 'node:crypto';
import type { CoveClient } from '../../sdk/client.js';
import type { User, Workspace } from '../../sdk/wire/index.js';

/**
 * What ties a scale test's users and workspaces together: both are named
 * `scaletest-<run id>-<n>`, the run id being 8 hex digits, so that `cleanup` finds them (one run's,
 * or every run's) and nothing else.
 */
export const SCALETEST_PREFIX = 'scaletest-';
const RUN_NAME = /^scaletest-([0-9a-f]{8})-(\d+)$/;

/** The build parameter carrying a workspace's agent token under `--simulated-agents`. */
export const TOKEN_PARAMETER = 'cove_scaletest_agent_token';
/** The echo template `create-workspaces --simulated-agents` makes when no `--template` is given. */
export const SIMULATED_TEMPLATE = 'scaletest-simulated';

export function newRunId(): string {
  return randomBytes(4).toString('hex');
}

/** The name of a run's n-th user, and of that user's workspace. */
export function runName(runId: string, index: number): string {
  return `${SCALETEST_PREFIX}${runId}-${index}`;
}

/** The run id of a scale test user's or workspace's name; undefined for any other name. */
export function runIdOf(name: string): string | undefined {
  return RUN_NAME.exec(name)?.[1];
}

/** Whether a run id names one (8 hex digits). */
export function isRunId(text: string): boolean {
  return /^[0-9a-f]{8}$/.test(text);
}

const PAGE = 100;

/** The scale test users of run `runId`, or of every run when undefined. */
export async function findRunUsers(client: CoveClient, runId: string | undefined): Promise<User[]> {
  const found: User[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await client.users({ q: `${SCALETEST_PREFIX}${runId ?? ''}`, limit: PAGE, offset });
    found.push(...page.users.filter((user) => matches(user.username, runId)));
    if (page.users.length < PAGE) return found;
  }
}

/** The workspaces of run `runId` (or of every run), owned by its users: a person's own `scaletest-…` workspace is never one. */
export async function findRunWorkspaces(client: CoveClient, runId: string | undefined): Promise<Workspace[]> {
  const found: Workspace[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await client.workspaces({ q: `name:${SCALETEST_PREFIX}${runId ?? ''}`, limit: PAGE, offset });
    found.push(...page.workspaces.filter((w) => matches(w.name, runId) && matches(w.owner_name, runId)));
    if (page.workspaces.length < PAGE) return found;
  }
}

function matches(name: string, runId: string | undefined): boolean {
  const id = runIdOf(name);
  return id !== undefined && (runId === undefined || id === runId);
}

/** The echo template whose agent takes its token from {@link TOKEN_PARAMETER} and reports two metadata items. */
export function simulatedTemplateEcho(): unknown {
  return {
    parse: {
      parameters: [
        {
          name: TOKEN_PARAMETER,
          display_name: 'Scale test agent token',
          description: 'The token a simulated agent connects with; chosen by cove scaletest.',
          type: 'string',
          default_value: '',
        },
      ],
    },
    apply: {
      resources: [
        {
          name: 'scaletest',
          type: 'echo',
          agents: [
            {
              name: 'main',
              auth_token: `\${parameter.${TOKEN_PARAMETER}}`,
              metadata: [
                { key: 'load', display_name: 'Load', script: 'cat /proc/loadavg', interval: 5, timeout: 1 },
                { key: 'disk', display_name: 'Disk', script: 'df -h /', interval: 10, timeout: 1 },
              ],
            },
          ],
        },
      ],
    },
  };
}
