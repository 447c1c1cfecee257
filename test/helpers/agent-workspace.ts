import assert from 'node:assert/strict';
import { silentLogger, startAgent, type AgentHandle, type AgentOptions } from '../../src/agent/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { eventually } from './eventually.js';
import { createEchoTemplate } from './echo-template.js';

/** A workspace whose one agent (`main`) runs for real in this process. */
export interface AgentWorkspace {
  readonly templateId: string;
  readonly workspaceId: string;
  readonly agentId: string;
  readonly agent: AgentHandle;
}

/**
 * Makes a template whose echo agent `main` has a known token (with `agent` merged into its
 * definition: apps, scripts...), a workspace `name` of `member`'s from it, and starts the real
 * agent against `url`; resolves once the agent is ready and the daemon sees it connected.
 */
export async function startAgentWorkspace(input: {
  readonly url: string;
  readonly owner: CoveClient;
  readonly member: CoveClient;
  readonly token: string;
  readonly home: string;
  readonly name?: string;
  readonly templateName?: string;
  readonly agent?: Readonly<Record<string, unknown>>;
  readonly timing?: AgentOptions['timing'];
  /** Runs on the template before the workspace is made (a port share maximum, say). */
  readonly prepareTemplate?: (templateId: string) => Promise<unknown>;
}): Promise<AgentWorkspace> {
  const echo = {
    apply: {
      resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main', auth_token: input.token, directory: '', ...input.agent }] }],
    },
  };
  const { template } = await createEchoTemplate(input.owner, input.templateName ?? 'with-agent', echo);
  await input.prepareTemplate?.(template.id);
  const workspace = await input.member.createWorkspace('me', { name: input.name ?? 'dev', template_id: template.id });
  await input.member.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
  const found = (await input.member.workspaceBuild(workspace.latest_build.id)).resources.flatMap((r) => r.agents)[0];
  assert.ok(found, 'the build made an agent');
  const agent = startAgent({
    url: input.url,
    token: input.token,
    logger: silentLogger,
    env: { PATH: process.env['PATH'], HOME: input.home, SHELL: '/bin/sh' },
    ...(input.timing ? { timing: input.timing } : {}),
  });
  await agent.waitForLifecycle('ready');
  await eventually(async () => assert.equal((await input.member.workspaceAgent(found.id)).status, 'connected'));
  return { templateId: template.id, workspaceId: workspace.id, agentId: found.id, agent };
}
