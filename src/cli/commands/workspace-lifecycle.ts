import type { CoveClient } from '../../sdk/client.js';
import type { NameValue, Workspace, WorkspaceBuild } from '../../sdk/wire/index.js';
import { followBuild, reportBuild, runBuild, stateLine } from '../build-progress.js';
import { CliError } from '../cli-error.js';
import type { ArgumentSpec, CommandContext, CommandSpec, OptionSpec } from '../command.js';
import { printJson } from '../output.js';
import { confirm } from '../confirm.js';
import { parseWorkspaceRef, resolveWorkspace } from '../workspace-ref.js';
import { repeatableOptions } from './templates-common.js';
import {
  anyGiven,
  buildParameterOptions,
  givenParameters,
  repeatableParameterOptions,
  resolveParameters,
  type GivenParameters,
} from './workspace-parameters.js';

const workspaceArgument: ArgumentSpec = { name: 'workspace', description: 'NAME or OWNER/NAME', required: true };

/** The workspace a command names, with the label its messages use (what the user typed). */
async function target(client: CoveClient, text: string): Promise<{ readonly workspace: Workspace; readonly label: string }> {
  const ref = parseWorkspaceRef(text);
  return { workspace: await resolveWorkspace(client, ref), label: ref.text };
}

/** Says that nothing needed doing; under `-o json`, the workspace as it is. */
function unchanged(context: CommandContext, workspace: Workspace, line: string): number {
  if (context.json) printJson(context.io, workspace);
  else context.say(line);
  return 0;
}

/**
 * The version a start builds, and whether it must be named in the request. Left unnamed, the API
 * keeps the current version, or moves to the active one when automatic updates are on; a
 * template that requires its active version gets it named, since the API refuses anything else.
 */
function startVersion(workspace: Workspace): { readonly id: string; readonly explicit: boolean } {
  if (workspace.template_require_active_version && workspace.outdated) return { id: workspace.template_active_version_id, explicit: true };
  if (workspace.automatic_updates === 'always') return { id: workspace.template_active_version_id, explicit: false };
  return { id: workspace.latest_build.template_version_id, explicit: false };
}

/** The values a start sends: checked against the version it builds, with the last build's values known. */
async function startValues(
  context: CommandContext,
  client: CoveClient,
  workspace: Workspace,
  versionId: string,
  given: GivenParameters,
  noPrompt: boolean,
): Promise<NameValue[]> {
  const [parameters, previous] = await Promise.all([
    client.templateVersionRichParameters(versionId),
    client.workspaceBuildParameters(workspace.latest_build.id),
  ]);
  return resolveParameters(context, {
    parameters,
    given: given.values,
    ephemeral: given.ephemeral,
    promptEphemeral: given.promptEphemeral,
    previous,
    noPrompt,
  });
}

/** `-y`: for the builds that may ask (a confirmation, or parameters without a value). */
function yesOption(what: string): OptionSpec {
  return { flags: '-y, --yes', description: `Do not ask: ${what}`, default: false };
}

/**
 * Asks on a terminal before a build that interrupts work in the workspace, as the reference does.
 * Scripts (no terminal) and `-y` go ahead, since the build can be undone by starting again.
 */
function confirmBuild(context: CommandContext, question: string, verb: string, yes: boolean): Promise<void> {
  return confirm(context, question, { yes, action: question, canceled: `nothing was ${verb}`, undoable: true });
}

/** Stops the workspace first when it is not stopped yet; returns the failed build if the stop failed. */
async function stopFirst(
  context: CommandContext,
  client: CoveClient,
  workspace: Workspace,
  label: string,
): Promise<WorkspaceBuild | undefined> {
  if (workspace.latest_build.status === 'stopped') return undefined;
  const stopped = await runBuild(context, client, workspace, label, { transition: 'stop' });
  if (stopped.job.status !== 'succeeded') return stopped;
  context.say(stateLine(label, stopped));
  return undefined;
}

/** `cove start`: starts a stopped (or failed) workspace, optionally with new parameter values. */
export const startCommand: CommandSpec = {
  name: 'start',
  summary: 'Start a workspace',
  arguments: [workspaceArgument],
  options: [...buildParameterOptions, yesOption('parameters without a value keep their defaults; a required one is an error')],
  configure: repeatableOptions(repeatableParameterOptions),
  examples: ['cove start dev', 'cove start dev --parameter cpus=4 -y'],
  async run(context, [name = ''], options) {
    const given = await givenParameters(options);
    const client = await context.client();
    const { workspace, label } = await target(client, name);
    if (workspace.latest_build.status === 'running') {
      if (anyGiven(given))
        throw new CliError(`Workspace "${label}" is already running.`, {
          hint: `Run "cove restart ${label}" with the parameters to apply them.`,
        });
      return unchanged(context, workspace, `Workspace "${label}" is already running.`);
    }
    const version = startVersion(workspace);
    const values = await startValues(context, client, workspace, version.id, given, options['yes'] === true);
    if (version.explicit) context.say(`The template requires its active version; starting on it.`);
    const build = await runBuild(context, client, workspace, label, {
      transition: 'start',
      rich_parameter_values: values,
      ...(version.explicit ? { template_version_id: version.id } : {}),
    });
    return reportBuild(context, client, label, build);
  },
};

/** `cove stop`: stops a workspace. */
export const stopCommand: CommandSpec = {
  name: 'stop',
  summary: 'Stop a workspace',
  arguments: [workspaceArgument],
  options: [yesOption('stop without asking for confirmation on a terminal')],
  examples: ['cove stop dev', 'cove stop dev -y'],
  async run(context, [name = ''], options) {
    const client = await context.client();
    const { workspace, label } = await target(client, name);
    if (workspace.latest_build.status === 'stopped') return unchanged(context, workspace, `Workspace "${label}" is already stopped.`);
    await confirmBuild(context, `Stop workspace "${label}"?`, 'stopped', options['yes'] === true);
    return reportBuild(context, client, label, await runBuild(context, client, workspace, label, { transition: 'stop' }));
  },
};

/** `cove restart`: stops a workspace, then starts it, optionally with new parameter values. */
export const restartCommand: CommandSpec = {
  name: 'restart',
  summary: 'Stop a workspace, then start it',
  arguments: [workspaceArgument],
  options: [...buildParameterOptions, yesOption('restart without confirmation; parameters without a value keep their defaults')],
  configure: repeatableOptions(repeatableParameterOptions),
  examples: ['cove restart dev', 'cove restart dev --parameter cpus=8 -y'],
  async run(context, [name = ''], options) {
    const given = await givenParameters(options);
    const client = await context.client();
    const { workspace, label } = await target(client, name);
    const version = startVersion(workspace);
    const yes = options['yes'] === true;
    // Checked before the stop, so a mistyped value never leaves the workspace stopped.
    const values = await startValues(context, client, workspace, version.id, given, yes);
    await confirmBuild(context, `Restart workspace "${label}"?`, 'restarted', yes);
    const failedStop = await stopFirst(context, client, workspace, label);
    if (failedStop) return reportBuild(context, client, label, failedStop);
    const build = await runBuild(context, client, workspace, label, {
      transition: 'start',
      rich_parameter_values: values,
      ...(version.explicit ? { template_version_id: version.id } : {}),
    });
    return reportBuild(context, client, label, build);
  },
};

/** `cove update`: moves an outdated workspace to its template's active version. */
export const updateCommand: CommandSpec = {
  name: 'update',
  summary: "Move a workspace to its template's active version and start it",
  description:
    "Rebuild an outdated workspace on its template's active version: a running workspace is " +
    'stopped first, then started on the new version. New parameters without a default are asked ' +
    'for on a terminal, or given with --parameter.',
  arguments: [workspaceArgument],
  options: [...buildParameterOptions, yesOption('new parameters without a value keep their defaults; a required one is an error')],
  configure: repeatableOptions(repeatableParameterOptions),
  examples: ['cove update dev', 'cove update dev --parameter region=eu -y'],
  async run(context, [name = ''], options) {
    const given = await givenParameters(options);
    const client = await context.client();
    const { workspace, label } = await target(client, name);
    if (!workspace.outdated) {
      return unchanged(
        context,
        workspace,
        `Workspace "${label}" is already on the active version ("${workspace.latest_build.template_version_name}").`,
      );
    }
    const versionId = workspace.template_active_version_id;
    const values = await startValues(context, client, workspace, versionId, given, options['yes'] === true);
    const failedStop = await stopFirst(context, client, workspace, label);
    if (failedStop) return reportBuild(context, client, label, failedStop);
    const build = await runBuild(context, client, workspace, label, {
      transition: 'start',
      template_version_id: versionId,
      rich_parameter_values: values,
    });
    return reportBuild(context, client, label, build);
  },
};

/** `cove delete`: deletes a workspace after confirmation. */
export const deleteCommand: CommandSpec = {
  name: 'delete',
  aliases: ['rm'],
  summary: 'Delete a workspace and destroy its resources',
  arguments: [workspaceArgument],
  options: [
    { flags: '-y, --yes', description: 'Delete without asking', default: false },
    {
      flags: '--orphan',
      description: 'Delete the workspace but leave its resources in place (for a template that cannot destroy them; template admins only)',
      default: false,
    },
  ],
  examples: ['cove delete dev -y', 'cove rm alice/dev --orphan -y'],
  async run(context, [name = ''], options) {
    const client = await context.client();
    const { workspace, label } = await target(client, name);
    const orphan = options['orphan'] === true;
    await confirmDelete(context, label, orphan, options['yes'] === true);
    return reportBuild(
      context,
      client,
      label,
      await runBuild(context, client, workspace, label, { transition: 'delete', ...(orphan ? { orphan: true } : {}) }),
    );
  },
};

function confirmDelete(context: CommandContext, label: string, orphan: boolean, yes: boolean): Promise<void> {
  const what = orphan ? 'Its resources will be left in place.' : 'Its resources will be destroyed.';
  return confirm(context, `Delete workspace "${label}"? ${what}`, {
    yes,
    action: `Deleting workspace "${label}"`,
    canceled: 'nothing was deleted',
  });
}

/** `cove workspaces cancel`: cancels the workspace's active build. */
export const cancelCommand: CommandSpec = {
  name: 'cancel',
  summary: "Cancel a workspace's active build",
  arguments: [workspaceArgument],
  examples: ['cove workspaces cancel dev'],
  async run(context, [name = ''], _options) {
    const client = await context.client();
    const { workspace, label } = await target(client, name);
    const build = workspace.latest_build;
    if (build.job.status !== 'pending' && build.job.status !== 'running') {
      throw new CliError(`Workspace "${label}" has no active build to cancel (it is ${build.status}).`);
    }
    await client.cancelWorkspaceBuild(build.id);
    context.say(`Canceling the ${build.transition} build of workspace "${label}"...`);
    const final = await followBuild(context, client, build);
    if (context.json) printJson(context.io, await client.workspace(workspace.id, true));
    else context.say(stateLine(label, final));
    return 0;
  },
};
