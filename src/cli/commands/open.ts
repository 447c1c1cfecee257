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
    'Prints where APP of the workspace is served: its subdomain when the deployment has a wildcard ' +
    'access URL, else its path on the deployment (/@OWNER/WORKSPACE.AGENT/apps/SLUG/), which only the ' +
    "workspace's owner may open; or its own URL for an external app.",
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
    const host = app.external ? '' : (await client.request<{ host: string }>('GET', '/applications/host')).host;
    const url = appUrl(client.url, host, workspace.owner_name, workspace.name, agent.name, app);
    if (context.json) printJson(context.io, { url });
    else context.io.stdout.write(`${url}\n`);
    if (!app.external && host === '') {
      const note = await pathAppNote(app, workspace.owner_name, () => client.user('me').then((me) => me.username));
      if (note) context.io.stderr.write(`${note}\n`);
    }
    return 0;
  },
};

/** The label of an app's subdomain, when every name fits one (`slug--agent--workspace--owner`). */
function subdomainLabel(slug: string, agent: string, workspace: string, owner: string): string | undefined {
  const parts = [slug, agent, workspace, owner];
  const label = parts.join('--');
  // The proxy reads each part back by splitting on `--`, and DNS labels stop at 63 characters.
  return parts.every((part) => /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/.test(part)) && label.length <= 63 ? label : undefined;
}

/**
 * Where to open an app. With a wildcard access URL, every proxied app opens on its subdomain: a
 * path app shares the deployment's origin, where its pages could act with the visitor's session,
 * and opens only for its workspace's owner. Without one, the path on the deployment.
 */
function appUrl(base: string, wildcardHost: string, owner: string, workspace: string, agent: string, app: App): string {
  if (app.external) return app.url;
  const label = app.subdomain_name || subdomainLabel(app.slug, agent, workspace, owner);
  if (wildcardHost !== '' && label) {
    const scheme = new URL(base).protocol;
    return `${scheme}//${wildcardHost.replace('*', label)}/`;
  }
  return `${base}/@${encodeURIComponent(owner)}/${encodeURIComponent(workspace)}.${encodeURIComponent(agent)}/apps/${encodeURIComponent(app.slug)}/`;
}

/**
 * What to say about a path URL that others than the workspace's owner cannot open: when the app
 * is shared beyond the owner, or the caller is not the owner. Undefined when nothing needs saying.
 */
async function pathAppNote(app: App, owner: string, me: () => Promise<string>): Promise<string | undefined> {
  const why =
    "path apps open only for their workspace's owner (unless the operator allows sharing them, at a risk), since their pages " +
    "run on the deployment's own origin. An operator can serve apps on subdomains, where sharing is safe, with --wildcard-access-url.";
  if ((await me()).toLowerCase() !== owner.toLowerCase()) return `Note: this workspace is ${owner}'s, and ${why}`;
  if (app.sharing_level !== 'owner')
    return `Note: app "${app.slug}" is shared (${app.sharing_level}), but others cannot open it here: ${why}`;
  return undefined;
}
