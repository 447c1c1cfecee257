import { Option } from 'commander';
import { readFile, writeFile } from 'node:fs/promises';
import { reportBuild, runBuild } from '../build-progress.js';
import { CliError } from '../cli-error.js';
import { readStdin } from '../read-stdin.js';
import type { CommandContext, CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { buildOption, pickBuild } from '../workspace-build-ref.js';
import { parseWorkspaceRef, resolveWorkspace } from '../workspace-ref.js';

/** `cove state pull WORKSPACE [FILE]`: the provisioner state a build recorded, on stdout or into FILE. */
const pullCommand: CommandSpec = {
  name: 'pull',
  summary: "Print or save the provisioner state of a workspace's build",
  description:
    'Print the provisioner state (for Terraform templates, the Terraform state) that a build of the ' +
    'workspace recorded, as stored, or write it to FILE (mode 0600). Template managers only: the ' +
    'state may hold secrets of the infrastructure.',
  arguments: [
    { name: 'workspace', description: 'NAME or OWNER/NAME', required: true },
    { name: 'file', description: 'where to write the state (default: standard output)' },
  ],
  options: [buildOption],
  examples: ['cove state pull dev', 'cove state pull dev dev.tfstate --build 3', 'cove state pull alice/dev -b -1 > before.tfstate'],
  async run(context, [name = '', file], options) {
    const client = await context.client();
    const ref = parseWorkspaceRef(name);
    const workspace = await resolveWorkspace(client, ref);
    const build = await pickBuild(client, workspace, options['build'], ref.text);
    const state = await client.workspaceBuildState(build.id);
    if (file === undefined) {
      context.io.stdout.write(state);
      if (state.length > 0 && state[state.length - 1] !== 0x0a) context.io.stdout.write('\n');
      return 0;
    }
    await writeFile(file, state, { mode: 0o600 });
    if (context.json)
      printJson(context.io, {
        workspace: `${workspace.owner_name}/${workspace.name}`,
        build_number: build.build_number,
        file,
        bytes: state.length,
      });
    else context.say(`Wrote the state of build #${build.build_number} of workspace "${ref.text}" to ${file} (${state.length} bytes).`);
    return 0;
  },
};

/** `cove state push WORKSPACE FILE`: a new build from the given state, or (--no-build) the state replaced in place. */
const pushCommand: CommandSpec = {
  name: 'push',
  summary: 'Build a workspace from a provisioner state file, or replace the state in place',
  description:
    'Start a new build of the workspace that repeats a build (by default the latest: same ' +
    'transition, same template version) from the state in FILE ("-" reads standard input), to ' +
    'repair a workspace whose infrastructure drifted from what its state says. With --no-build ' +
    "the build's recorded state is replaced and nothing runs: the next build starts from it. " +
    'Template managers only.',
  arguments: [
    { name: 'workspace', description: 'NAME or OWNER/NAME', required: true },
    { name: 'file', description: 'the state file, or - for standard input', required: true },
  ],
  options: [buildOption],
  configure: async (command) => {
    // A plain flag, not commander's negation of --build, so it does not clear the build number.
    const noBuild = new Option('-n, --no-build', 'Replace the state of the build without starting a new one');
    noBuild.negate = false;
    command.addOption(noBuild);
  },
  examples: [
    'cove state push dev dev.tfstate',
    'cove state push dev fixed.tfstate --no-build',
    'cat s.tfstate | cove state push alice/dev -',
  ],
  async run(context, [name = '', file = ''], options) {
    const state = await readState(context, file);
    const client = await context.client();
    const ref = parseWorkspaceRef(name);
    const workspace = await resolveWorkspace(client, ref);
    const build = await pickBuild(client, workspace, options['build'], ref.text);
    if (options['noBuild'] === true) {
      await client.updateWorkspaceBuildState(build.id, state);
      if (context.json)
        printJson(context.io, {
          workspace: `${workspace.owner_name}/${workspace.name}`,
          build_number: build.build_number,
          bytes: state.length,
        });
      else context.say(`Replaced the state of build #${build.build_number} of workspace "${ref.text}" (${state.length} bytes).`);
      return 0;
    }
    const next = await runBuild(context, client, workspace, ref.text, {
      transition: build.transition,
      template_version_id: build.template_version_id,
      state: state.toString('base64'),
    });
    return reportBuild(context, client, ref.text, next);
  },
};

async function readState(context: CommandContext, file: string): Promise<Buffer> {
  if (file === '-') return readStdin(context.io);
  try {
    return await readFile(file);
  } catch (error) {
    throw new CliError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
  }
}

/** `cove state`: pull and push the provisioner state of workspace builds. */
export const stateCommand: CommandSpec = {
  name: 'state',
  summary: 'Pull and push the provisioner state of workspaces, to repair broken ones',
  subcommands: [pullCommand, pushCommand],
  examples: ['cove state pull dev > dev.tfstate', 'cove state push dev dev.tfstate'],
};
