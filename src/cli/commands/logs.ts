import type { CoveClient } from '../../sdk/client.js';
import type { ProvisionerJobLog, WorkspaceAgent, WorkspaceAgentLog, WorkspaceBuild } from '../../sdk/wire/index.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { buildOption, pickBuild } from '../workspace-build-ref.js';
import { parseWorkspaceRef, resolveWorkspace } from '../workspace-ref.js';

/** `cove logs WORKSPACE`: a build's provisioner log, then its agents' logs by source; `--follow` streams them. */
export const logsCommand: CommandSpec = {
  name: 'logs',
  summary: "Show a workspace's build log and its agents' script logs",
  description:
    'Print the provisioner log of a build of the workspace (by default the latest), then the logs ' +
    'of its agents grouped by where they come from (each script, such as the startup script). ' +
    'With --follow, the build log streams until the build is done, then the agent logs stream ' +
    'until the agents stop, the workspace is built again, or Ctrl-C. Under -o json every line is ' +
    'one JSON object on its own line.',
  arguments: [{ name: 'workspace', description: 'NAME or OWNER/NAME', required: true }],
  options: [buildOption, { flags: '-f, --follow', description: 'Stream new lines as they arrive', default: false }],
  examples: ['cove logs dev', 'cove logs dev --follow', 'cove logs alice/dev --build -1', 'cove logs dev -o json | jq -r .output'],
  async run(context, [name = ''], options) {
    const client = await context.client();
    const ref = parseWorkspaceRef(name);
    const workspace = await resolveWorkspace(client, ref);
    const build = await pickBuild(client, workspace, options['build'], ref.text);
    const printer = new LogPrinter(context, build);
    if (options['follow'] !== true) {
      printer.buildHeader();
      for (const log of await client.workspaceBuildLogs(build.id)) printer.provisioner(log);
      for (const agent of agentsOf(build)) printer.agentGroups(agent, await client.workspaceAgentLogs(agent.id));
      return 0;
    }
    const interrupted = new AbortController();
    const stop = (): void => interrupted.abort();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    try {
      await follow(client, build, printer, interrupted.signal);
    } finally {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
    }
    return 0;
  },
};

/**
 * Streams the build log until the build is done, then reads the build again (its agents exist
 * once it has applied) and streams every agent's log at once until each stream ends or `signal`.
 */
async function follow(client: CoveClient, build: WorkspaceBuild, printer: LogPrinter, signal: AbortSignal): Promise<void> {
  printer.buildHeader();
  await client.followWorkspaceBuildLogs(build.id, (log) => printer.provisioner(log), undefined, signal);
  if (signal.aborted) return;
  const done = await client.workspaceBuild(build.id);
  await Promise.all(
    agentsOf(done).map(async (agent) => {
      printer.agentHeader(agent);
      await client.followWorkspaceAgentLogs(agent.id, (log) => printer.agent(agent, log), undefined, signal);
    }),
  );
}

function agentsOf(build: WorkspaceBuild): WorkspaceAgent[] {
  return build.resources.flatMap((resource) => resource.agents);
}

/** A log source as agents list them (the wire type leaves the entries open). */
interface LogSource {
  readonly id: string;
  readonly display_name: string;
}

function logSources(agent: WorkspaceAgent): LogSource[] {
  return agent.log_sources.filter(
    (source): source is LogSource =>
      typeof source === 'object' &&
      source !== null &&
      typeof (source as LogSource).id === 'string' &&
      typeof (source as LogSource).display_name === 'string',
  );
}

/**
 * Prints log lines for people (`TIME LEVEL [provisioner|Stage] output`, `TIME LEVEL
 * [agent.main|Startup Script] output`, under headers) or, under `-o json`, one object per line.
 */
class LogPrinter {
  readonly #context: CommandContext;
  readonly #build: WorkspaceBuild;

  constructor(context: CommandContext, build: WorkspaceBuild) {
    this.#context = context;
    this.#build = build;
  }

  buildHeader(): void {
    const build = this.#build;
    this.#context.say(
      `==> Build #${build.build_number}: ${build.transition} on template version ${build.template_version_name}, by ${build.initiator_name} (${build.status})`,
    );
  }

  provisioner(log: ProvisionerJobLog): void {
    if (this.#context.json) {
      this.#json({
        source: 'provisioner',
        build_number: this.#build.build_number,
        id: log.id,
        created_at: log.created_at,
        level: log.log_level,
        stage: log.stage,
        output: log.output,
      });
      return;
    }
    // The runner opens each stage with an empty line; it names the stage and says nothing.
    if (log.output === '') return;
    this.#line(log.created_at, log.log_level, `provisioner|${log.stage}`, log.output);
  }

  agentHeader(agent: WorkspaceAgent): void {
    this.#context.say(`==> Agent "${agent.name}"`);
  }

  /** An agent's lines, one group per log source in the order the agent lists its sources. */
  agentGroups(agent: WorkspaceAgent, logs: readonly WorkspaceAgentLog[]): void {
    const order = logSources(agent).map((source) => source.id);
    for (const log of logs) if (!order.includes(log.source_id)) order.push(log.source_id);
    for (const sourceId of order) {
      const lines = logs.filter((log) => log.source_id === sourceId);
      if (lines.length === 0) continue;
      this.#context.say(`==> Agent "${agent.name}": ${this.#sourceName(agent, sourceId)}`);
      for (const log of lines) this.agent(agent, log);
    }
  }

  agent(agent: WorkspaceAgent, log: WorkspaceAgentLog): void {
    const source = this.#sourceName(agent, log.source_id);
    if (this.#context.json) {
      this.#json({
        source: 'agent',
        agent: agent.name,
        agent_id: agent.id,
        log_source: source,
        log_source_id: log.source_id,
        id: log.id,
        created_at: log.created_at,
        level: log.level,
        output: log.output,
      });
      return;
    }
    this.#line(log.created_at, log.level, `agent.${agent.name}|${source}`, log.output);
  }

  #sourceName(agent: WorkspaceAgent, sourceId: string): string {
    return logSources(agent).find((source) => source.id === sourceId)?.display_name ?? 'unknown source';
  }

  #line(at: string, level: string, where: string, output: string): void {
    this.#context.io.stdout.write(`${at} ${level.padEnd(5)} [${where}] ${output}\n`);
  }

  #json(value: Readonly<Record<string, unknown>>): void {
    this.#context.io.stdout.write(`${JSON.stringify(value)}\n`);
  }
}
