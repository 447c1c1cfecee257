import type { CoveClient } from '../../sdk/client.js';
import type { CreateWorkspaceRequest, Template, TemplateVersionPreset } from '../../sdk/wire/index.js';
import { followBuild, reportBuild } from '../build-progress.js';
import { CliError } from '../cli-error.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { readDurationFlag } from '../duration-flag.js';
import { canPrompt, prompt } from '../prompt.js';
import { confirm } from '../confirm.js';
import { parseAutostartSchedule } from '../autostart-schedule.js';
import { parseWorkspaceRef } from '../workspace-ref.js';
import { requireTemplateExternalAuth } from '../template-external-auth.js';
import { creationCostLine } from '../quota-summary.js';
import { orgOption, repeatableOptions, requireTemplate, resolveVersion, stringOption } from './templates-common.js';
import { buildParameterOptions, givenParameters, repeatableParameterOptions, resolveParameters } from './workspace-parameters.js';

/** `cove create`: a new workspace from a template, followed through its first build. */
export const createCommand: CommandSpec = {
  name: 'create',
  summary: 'Create a workspace from a template',
  description:
    'Create a workspace from the active version of a template (or the one --template-version ' +
    'names) and follow its first build. On a ' +
    'terminal, cove asks for what is missing (the name, the template, parameters without a ' +
    'default); elsewhere it says what to pass.',
  arguments: [{ name: 'name', description: 'Workspace name, or OWNER/NAME to create it for another user' }],
  options: [
    { flags: '-t, --template <template>', description: 'Template name', env: 'COVE_TEMPLATE_NAME' },
    {
      flags: '--template-version <name>',
      description: 'Create from this version of the template rather than its active one (a version name, or latest)',
      env: 'COVE_TEMPLATE_VERSION',
    },
    ...buildParameterOptions,
    {
      flags: '--use-parameter-defaults',
      description: 'Take the default of every parameter given no value, without asking',
      env: 'COVE_WORKSPACE_USE_PARAMETER_DEFAULTS',
    },
    {
      flags: '--preset <preset>',
      description: 'Use a preset of the template\'s parameters ("none": no preset; default: the template\'s default preset)',
      env: 'COVE_PRESET_NAME',
    },
    {
      flags: '--ttl <duration>',
      description: "Stop the workspace this long after each start, e.g. 8h (default: the template's)",
      env: 'COVE_WORKSPACE_STOP_AFTER',
    },
    {
      flags: '--autostart, --start-at <schedule>',
      description:
        'Start on a schedule, as "cove schedule start" takes it: "9:30AM Mon-Fri Europe/London" or "CRON_TZ=Europe/London 30 9 * * 1-5"',
      env: 'COVE_WORKSPACE_START_AT',
    },
    {
      flags: '--automatic-updates <mode>',
      description: "always: starts move to the template's active version; never",
      default: 'never',
      env: 'COVE_WORKSPACE_AUTOMATIC_UPDATES',
    },
    { flags: '-y, --yes', description: 'Create without asking for confirmation', default: false },
    orgOption,
  ],
  configure: repeatableOptions(repeatableParameterOptions),
  examples: [
    'cove create dev --template python -y',
    'cove create dev -t python --parameter cpus=4 --ttl 8h --autostart "CRON_TZ=Europe/Paris 30 8 * * 1-5"',
    'cove create alice/dev -t python --rich-parameter-file params.yaml',
    'cove create dev -t python --template-version v3 --use-parameter-defaults -y',
  ],
  async run(context, [nameArgument], options) {
    const settings = scheduleSettings(options, context.io.env);
    const given = await givenParameters(options);
    const client = await context.client();
    const interactive = canPrompt(context.io);
    let name = nameArgument;
    let templateName = stringOption(options, 'template');
    if (!interactive && (name === undefined || templateName === undefined)) throw await missingArguments(client, name, templateName);
    name ??= await askName(context);
    const ref = parseWorkspaceRef(name);
    if (ref.id !== undefined) throw new CliError(`"${name}" is an id; a new workspace needs a name.`);
    const template =
      templateName === undefined ? await askTemplate(context, client) : await requireTemplate(client, String(options['org']), templateName);
    templateName = template.name;

    const wantedVersion = stringOption(options, 'templateVersion');
    const versionId = wantedVersion === undefined ? template.active_version_id : (await resolveVersion(client, template, wantedVersion)).id;
    // Before any question: a workspace whose git cannot authenticate is not worth the answers.
    await requireTemplateExternalAuth(context, client, versionId, interactive && options['yes'] !== true);
    const [parameters, presets] = await Promise.all([
      client.templateVersionRichParameters(versionId),
      client.templateVersionPresets(versionId),
    ]);
    const preset = choosePreset(context, presets, stringOption(options, 'preset'));
    const values = await resolveParameters(context, {
      parameters,
      given: given.values,
      ephemeral: given.ephemeral,
      promptEphemeral: given.promptEphemeral,
      useDefaults: options['useParameterDefaults'] === true,
      preset: preset?.Parameters.map((p) => ({ name: p.Name, value: p.Value })),
    });
    // Shown before asking, so the user decides knowing what the workspace costs and what is left.
    const cost = await creationCostLine(client, ref.owner, template.organization_id, versionId);
    if (cost) context.say(cost);
    await confirmCreate(context, ref.text, templateName, options['yes'] === true);

    const request: CreateWorkspaceRequest = {
      name: ref.name,
      template_version_id: versionId,
      ...(preset ? { template_version_preset_id: preset.ID } : {}),
      ...settings,
      rich_parameter_values: values,
    };
    const created = await client.createWorkspace(ref.owner, request);
    context.say(`Creating workspace "${ref.text}" from template "${templateName}"...`);
    return reportBuild(context, client, ref.text, await followBuild(context, client, created.latest_build));
  },
};

/** The scheduling fields of the request, checked before anything is asked or sent. */
function scheduleSettings(
  options: Readonly<Record<string, unknown>>,
  env: Readonly<Record<string, string | undefined>>,
): Pick<CreateWorkspaceRequest, 'ttl_ms' | 'autostart_schedule' | 'automatic_updates'> {
  const ttl = stringOption(options, 'ttl');
  const ttlMs = ttl === undefined ? undefined : readDurationFlag(ttl, '--ttl');
  if (ttl !== undefined && ttlMs === undefined)
    throw new CliError(`--ttl "${ttl}" is not a duration.`, { hint: 'Write it like 8h, 90m or 1h30m.' });
  const updates = String(options['automaticUpdates'] ?? 'never');
  if (updates !== 'always' && updates !== 'never') throw new CliError(`--automatic-updates takes always or never, not "${updates}".`);
  const autostart = stringOption(options, 'startAt');
  return {
    ...(ttlMs === undefined ? {} : { ttl_ms: ttlMs }),
    ...(autostart ? { autostart_schedule: parseAutostartSchedule([autostart], env) } : {}),
    automatic_updates: updates,
  };
}

/** What to pass when there is no terminal to ask on, with the templates that could be used. */
async function missingArguments(client: CoveClient, name: string | undefined, template: string | undefined): Promise<CliError> {
  const missing = [...(name === undefined ? ['a workspace name'] : []), ...(template === undefined ? ['--template'] : [])];
  const usable = await client.templates().then(
    (templates) => templates.filter((t) => !t.deprecated).map((t) => t.name),
    () => [],
  );
  const choices =
    template !== undefined
      ? ''
      : usable.length > 0
        ? ` Templates you can use: ${usable.join(', ')}.`
        : ' No template exists yet: push one with "cove templates push".';
  return new CliError(`cove create needs ${missing.join(' and ')} (there is no terminal to ask on).`, {
    hint: `Run "cove create ${name ?? 'NAME'} --template ${template ?? 'TEMPLATE'}".${choices}`,
  });
}

async function askName(context: CommandContext): Promise<string> {
  for (;;) {
    const answer = (await prompt(context.io, 'Name for the new workspace: ')).trim();
    if (answer !== '') return answer;
  }
}

/** Lets the user pick a template by number or name, the most used first. */
async function askTemplate(context: CommandContext, client: CoveClient): Promise<Template> {
  const templates = (await client.templates())
    .filter((t) => !t.deprecated)
    .sort((a, b) => b.active_user_count - a.active_user_count || a.name.localeCompare(b.name));
  if (templates.length === 0) throw new CliError('No template exists yet.', { hint: 'Push one with "cove templates push".' });
  context.io.stderr.write('Templates:\n');
  templates.forEach((t, i) => {
    const users = t.active_user_count === 1 ? 'used by 1 developer' : `used by ${t.active_user_count} developers`;
    context.io.stderr.write(`  ${i + 1}) ${t.name}${t.display_name ? ` - ${t.display_name}` : ''} (${users})\n`);
  });
  for (;;) {
    const answer = (await prompt(context.io, 'Template (number or name): ')).trim();
    const index = /^\d+$/.test(answer) ? Number(answer) - 1 : -1;
    const found = templates[index] ?? templates.find((t) => t.name === answer);
    if (found) return found;
    if (answer !== '') context.io.stderr.write(`  No template "${answer}"; try again.\n`);
  }
}

/** The preset named by --preset; else the version's default preset, if it has one. */
function choosePreset(
  context: CommandContext,
  presets: readonly TemplateVersionPreset[],
  wanted: string | undefined,
): TemplateVersionPreset | undefined {
  if (wanted === 'none') return undefined;
  if (wanted === undefined) {
    const fallback = presets.find((p) => p.Default);
    if (fallback) context.say(`Using the default preset "${fallback.Name}" (--preset none to use none).`);
    return fallback;
  }
  const found = presets.find((p) => p.Name === wanted);
  if (!found) {
    throw new CliError(`The template has no preset "${wanted}".`, {
      hint: presets.length > 0 ? `Its presets are: ${presets.map((p) => p.Name).join(', ')}.` : 'It has no presets.',
    });
  }
  return found;
}

/** Asked on a terminal unless -y; without one, the flags already said everything. */
function confirmCreate(context: CommandContext, name: string, template: string, yes: boolean): Promise<void> {
  return confirm(context, `Create workspace "${name}" from template "${template}"?`, {
    yes,
    action: `Creating workspace "${name}"`,
    canceled: 'nothing was created',
    undoable: true,
    defaultYes: true,
  });
}
