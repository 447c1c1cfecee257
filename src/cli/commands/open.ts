import type { WorkspaceAgent } from '../../sdk/wire/index.js';
import { CliError } from '../cli-error.js';
import type { CommandSpec } from '../command.js';
import { printJson } from '../output.js';
import { resolveWorkspaceAgent } from '../workspace-agent-ref.js';

type App = WorkspaceAgent['apps'][number];

/** `cove open`: the address of a workspace app. */
export const openCommand: CommandSpec = {
  name: 'open',
  summary: 'Print the URL of a workspace app',
  description:
    'Prints where APP of the workspace is served: its path on the deployment ' +
    '(/@OWNER/WORKSPACE.AGENT/apps/SLUG/), its subdomain when the deployment has a wildcard access URL ' +
    'and the app asks for one, or its own URL for an external app.',
  arguments: [
    { name: 'workspace', description: 'WORKSPACE, OWNER/WORKSPACE, or either followed by .AGENT', required: true },
    { name: 'app', description: 'The app slug (omit to list the apps)' },
  ],
  examples: ['cove open dev code-server', 'cove open alice/dev.main web -o json'],
  async run(context, [workspaceText = '', slug], _options) {
    const client = await context.client();
    const { workspace, agent, label } = await resolveWorkspaceAgent(client, workspaceText, { io: context.io, wait: 'none' });
    const apps = agent.apps.filter((app) => !app.hidden);
    if (slug === undefined) {
      if (context.json)
        printJson(
          context.io,
          apps.map((app) => ({ slug: app.slug, display_name: app.display_name })),
        );
      else if (apps.length === 0) context.say(`Workspace "${label}" has no apps.`);
      else for (const app of apps) context.say(`${app.slug}\t${app.display_name}`);
      return 0;
    }
    const app = agent.apps.find((candidate) => candidate.slug === slug);
    if (!app)
      throw new CliError(`Workspace "${label}" has no app "${slug}".`, {
        hint: apps.length > 0 ? `Its apps: ${apps.map((a) => a.slug).join(', ')}.` : 'Its template defines no apps.',
      });
    const host = app.subdomain ? (await client.request<{ host: string }>('GET', '/applications/host')).host : '';
    const url = appUrl(client.url, host, workspace.owner_name, workspace.name, agent.name, app);
    if (context.json) printJson(context.io, { url });
    else context.io.stdout.write(`${url}\n`);
    return 0;
  },
};

function appUrl(base: string, wildcardHost: string, owner: string, workspace: string, agent: string, app: App): string {
  if (app.external) return app.url;
  if (app.subdomain && wildcardHost !== '' && app.subdomain_name) {
    const scheme = new URL(base).protocol;
    return `${scheme}//${wildcardHost.replace('*', app.subdomain_name)}/`;
  }
  return `${base}/@${encodeURIComponent(owner)}/${encodeURIComponent(workspace)}.${encodeURIComponent(agent)}/apps/${encodeURIComponent(app.slug)}/`;
}
