import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ApiError } from '../../sdk/api-error.js';
import type { CoveClient } from '../../sdk/client.js';
import type { ProvisionerJobLog, WorkspaceAgentLog } from '../../sdk/wire/index.js';
import { VERSION } from '../../lib/version.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { confirm } from '../confirm.js';
import { isSecretKey, REDACTED, redactSecrets, redactUrlCredentials } from '../redact-secrets.js';
import { resolveWorkspace } from '../workspace-ref.js';

/** The most log lines of one agent a bundle keeps: the newest ones. */
const AGENT_LOG_LINES = 10_000;

/** The files of a bundle, by path inside the zip, and what could not be collected. */
class Bundle {
  readonly files = new Map<string, string>();
  readonly notes: string[] = [];

  add(path: string, content: string): void {
    this.files.set(path, content);
  }

  json(path: string, value: unknown): void {
    this.add(path, `${JSON.stringify(redactSecrets(value), null, 2)}\n`);
  }

  note(text: string): void {
    this.notes.push(text);
  }

  /**
   * Runs one collection step; a failure is noted in the bundle instead of ending the command, so a
   * user without some permission still gets everything else. `missing` words an expected 404.
   */
  async collect(what: string, step: () => Promise<void>, missing?: string): Promise<void> {
    try {
      await step();
    } catch (error) {
      if (missing && error instanceof ApiError && error.status === 404) this.note(`${what}: ${missing}`);
      else this.note(`${what}: not collected (${error instanceof Error ? error.message : String(error)})`);
    }
  }
}

/** `cove support bundle`: what a maintainer needs to look into a problem, in one zip. */
const bundleCommand: CommandSpec = {
  name: 'bundle',
  summary: 'Write a zip of diagnostics for a support request',
  description:
    'Collects, into one zip file, the deployment build info, health report and configuration (with every ' +
    'secret-looking value redacted), this CLI version and environment (without tokens) and, when a workspace ' +
    'is named, the workspace, its latest build logs and its agents logs. Read it before you share it: ' +
    'workspace logs are included as they are.',
  arguments: [{ name: 'workspace', description: 'WORKSPACE or OWNER/WORKSPACE to include' }],
  options: [
    {
      flags: '-O, --output-file <path>',
      env: 'COVE_SUPPORT_BUNDLE_OUTPUT_FILE',
      description: 'Where to write the zip (default: cove-support-<unix time>.zip)',
    },
    { flags: '-y, --yes', description: 'Do not ask for confirmation', default: false },
  ],
  examples: ['cove support bundle -y', 'cove support bundle dev -O /tmp/dev-support.zip -y', 'cove support bundle alice/dev -y -o json'],
  async run(context, [workspaceText], options) {
    const file = resolve(
      typeof options['outputFile'] === 'string' ? options['outputFile'] : `cove-support-${Math.floor(Date.now() / 1000)}.zip`,
    );
    await confirmBundle(context, options['yes'] === true);
    const client = await context.client();
    const bundle = new Bundle();
    await collectDeployment(bundle, client);
    await collectCli(bundle, context, client);
    if (workspaceText) await collectWorkspace(bundle, client, workspaceText);
    bundle.note(
      'daemon logs: the API serves no daemon logs; they are where "cove serve" writes them (its standard error, or the service manager journal).',
    );
    bundle.add('README.txt', readme(bundle));
    const { zipSync, strToU8 } = await import('fflate');
    const entries = Object.fromEntries([...bundle.files].map(([path, content]) => [path, strToU8(content)]));
    writeFileSync(file, zipSync(entries, { level: 6, mtime: new Date() }), { mode: 0o600 });
    const summary = { file, files: [...bundle.files.keys()].sort(), notes: bundle.notes };
    if (context.json) printJson(context.io, summary);
    else {
      context.say(`Wrote the support bundle to ${file} (${summary.files.length} files).`);
      for (const line of bundle.notes) context.say(`  note: ${line}`);
    }
    return 0;
  },
};

/** The bundle carries settings and logs off the machine: asked first, by the CLI's one rule. */
function confirmBundle(context: CommandContext, yes: boolean): Promise<void> {
  return confirm(context, 'The bundle holds deployment settings (secrets redacted) and workspace logs. Continue?', {
    yes,
    action: 'Writing a support bundle',
    canceled: 'no bundle was written',
  });
}

async function collectDeployment(bundle: Bundle, client: CoveClient): Promise<void> {
  await bundle.collect('build info', async () => bundle.json('deployment/buildinfo.json', await client.buildInfo()));
  await bundle.collect(
    'health',
    async () => bundle.json('deployment/health.json', await client.request('GET', '/debug/health')),
    'this deployment serves no health report (/debug/health)',
  );
  await bundle.collect('configuration', async () => bundle.json('deployment/config.json', await client.deploymentConfig()));
  await bundle.collect('stats', async () => bundle.json('deployment/stats.json', await client.deploymentStats()));
  await bundle.collect('relay coordinator', async () =>
    bundle.add('deployment/relay-coordinator.html', (await client.requestBytes('GET', '/debug/coordinator')).body.toString('utf8')),
  );
  await bundle.collect('relay network', async () =>
    bundle.add('deployment/relay-network.html', (await client.requestBytes('GET', '/debug/tailnet')).body.toString('utf8')),
  );
}

/** This CLI: its version, platform, the deployment it talks to, who is signed in, and its COVE_* settings without secrets. */
async function collectCli(bundle: Bundle, context: CommandContext, client: CoveClient): Promise<void> {
  const env = Object.fromEntries(
    Object.entries(context.io.env)
      .filter(([name]) => name.startsWith('COVE_'))
      .map(([name, value]) => [name, isSecretKey(name) ? REDACTED : redactUrlCredentials(value ?? '')]),
  );
  const info: Record<string, unknown> = {
    version: VERSION,
    node: process.version,
    platform: process.platform,
    arch: process.arch,
    deployment_url: client.url,
    config_dir: context.configDir,
    environment: env,
  };
  await bundle.collect('signed-in user', async () => {
    const user = await client.user('me');
    info['user'] = { id: user.id, username: user.username, roles: user.roles, status: user.status };
  });
  bundle.json('cli/info.json', info);
}

async function collectWorkspace(bundle: Bundle, client: CoveClient, text: string): Promise<void> {
  const workspace = await resolveWorkspace(client, text);
  bundle.json('workspace/workspace.json', workspace);
  const build = workspace.latest_build;
  await bundle.collect('latest build logs', async () =>
    bundle.add('workspace/build-logs.txt', (await client.workspaceBuildLogs(build.id)).map(buildLogLine).join('')),
  );
  for (const agent of build.resources.flatMap((resource) => resource.agents)) {
    await bundle.collect(`logs of agent ${agent.name}`, async () => {
      const logs = await client.workspaceAgentLogs(agent.id);
      bundle.add(`workspace/agents/${agent.name}/logs.txt`, logs.slice(-AGENT_LOG_LINES).map(agentLogLine).join(''));
    });
  }
}

function buildLogLine(log: ProvisionerJobLog): string {
  return `${log.created_at} ${log.log_level} [${log.stage}] ${log.output}\n`;
}

function agentLogLine(log: WorkspaceAgentLog): string {
  return `${log.created_at} ${log.level} ${log.output}\n`;
}

function readme(bundle: Bundle): string {
  const lines = [
    'Cove support bundle',
    '',
    `Written by cove ${VERSION} at ${new Date().toISOString()}.`,
    'Values of settings whose names contain secret, password, token or key are replaced with [redacted],',
    'and so are passwords inside URLs.',
    '',
    'Files:',
    ...[...bundle.files.keys()].sort().map((path) => `  ${path}`),
    '',
    'Not collected:',
    ...(bundle.notes.length > 0 ? bundle.notes.map((note) => `  ${note}`) : ['  nothing']),
  ];
  return `${lines.join('\n')}\n`;
}

/** `cove support`: help for whoever helps you. */
export const supportCommand: CommandSpec = {
  name: 'support',
  summary: 'Collect diagnostics for a support request',
  subcommands: [bundleCommand],
};
