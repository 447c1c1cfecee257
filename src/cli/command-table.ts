import type { CommandSpec } from './command.js';

/** A top-level command: what `cove --help` lists, and how to load the rest when it runs. */
export interface CommandEntry {
  readonly name: string;
  readonly aliases?: readonly string[];
  readonly summary: string;
  readonly load: () => Promise<CommandSpec>;
}

/**
 * Every top-level command. Only the one being run is loaded, so `cove --version` and `cove --help`
 * stay fast and never load the daemon, ink or the database drivers.
 */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'login',
    summary: 'Sign in to a deployment (creates its first user on a new one)',
    load: async () => (await import('./commands/login.js')).loginCommand,
  },
  {
    name: 'logout',
    summary: 'Sign out and forget the session token',
    load: async () => (await import('./commands/logout.js')).logoutCommand,
  },
  { name: 'whoami', summary: 'Show the signed-in user', load: async () => (await import('./commands/whoami.js')).whoamiCommand },
  { name: 'tokens', summary: 'Create, list and remove API tokens', load: async () => (await import('./commands/tokens.js')).tokensCommand },
  {
    name: 'users',
    summary: 'List, create, show, suspend, activate and delete users',
    load: async () => (await import('./commands/users.js')).usersCommand,
  },
  {
    name: 'organizations',
    aliases: ['orgs', 'organization'],
    summary: 'Manage organizations and their members',
    load: async () => (await import('./commands/organizations.js')).organizationsCommand,
  },
  {
    name: 'templates',
    aliases: ['template'],
    summary: 'Create, push, pull, edit and delete templates',
    load: async () => (await import('./commands/templates.js')).templatesCommand,
  },
  {
    name: 'create',
    summary: 'Create a workspace from a template',
    load: async () => (await import('./commands/workspace-create.js')).createCommand,
  },
  {
    name: 'list',
    aliases: ['ls'],
    summary: 'List workspaces',
    load: async () => (await import('./commands/workspace-list.js')).listCommand,
  },
  {
    name: 'show',
    summary: 'Show a workspace, its resources and its agents',
    load: async () => (await import('./commands/workspace-show.js')).showCommand,
  },
  { name: 'start', summary: 'Start a workspace', load: async () => (await import('./commands/workspace-lifecycle.js')).startCommand },
  { name: 'stop', summary: 'Stop a workspace', load: async () => (await import('./commands/workspace-lifecycle.js')).stopCommand },
  {
    name: 'restart',
    summary: 'Stop a workspace, then start it',
    load: async () => (await import('./commands/workspace-lifecycle.js')).restartCommand,
  },
  {
    name: 'update',
    summary: "Move a workspace to its template's active version and start it",
    load: async () => (await import('./commands/workspace-lifecycle.js')).updateCommand,
  },
  {
    name: 'delete',
    aliases: ['rm'],
    summary: 'Delete a workspace and destroy its resources',
    load: async () => (await import('./commands/workspace-lifecycle.js')).deleteCommand,
  },
  {
    name: 'schedule',
    summary: 'Show and set when a workspace starts and stops on its own',
    load: async () => (await import('./commands/schedule.js')).scheduleCommand,
  },
  {
    name: 'port',
    aliases: ['ports'],
    summary: "Share, list and unshare a workspace's ports",
    load: async () => (await import('./commands/port.js')).portCommand,
  },
  {
    name: 'ssh',
    summary: 'Open a shell or run a command in a workspace over SSH',
    load: async () => (await import('./commands/ssh.js')).sshCommand,
  },
  {
    name: 'config-ssh',
    summary: 'Add workspaces to your SSH config so "ssh cove.WORKSPACE" works',
    load: async () => (await import('./commands/config-ssh.js')).configSshCommand,
  },
  {
    name: 'port-forward',
    aliases: ['tunnel'],
    summary: 'Forward local TCP and UDP ports to ports inside a workspace',
    load: async () => (await import('./commands/port-forward.js')).portForwardCommand,
  },
  {
    name: 'ping',
    summary: 'Measure the round trip to a workspace agent',
    load: async () => (await import('./commands/ping.js')).pingCommand,
  },
  { name: 'open', summary: 'Print the URL of a workspace app', load: async () => (await import('./commands/open.js')).openCommand },
  {
    name: 'workspaces',
    aliases: ['workspace', 'ws'],
    summary: 'All workspace commands, including cancel',
    load: async () => (await import('./commands/workspaces.js')).workspacesCommand,
  },
  {
    name: 'provisioner',
    aliases: ['provisioners'],
    summary: 'Run provisioner daemons and manage their keys',
    load: async () => (await import('./commands/provisioner.js')).provisionerCommand,
  },
  {
    name: 'agent',
    summary: 'Run the workspace agent (inside a workspace)',
    load: async () => (await import('./commands/agent.js')).agentCommand,
  },
  {
    name: 'serve',
    aliases: ['server'],
    summary: 'Run the Cove daemon',
    load: async () => (await import('./commands/serve.js')).serveCommand,
  },
  {
    name: 'completion',
    summary: 'Print a shell completion script (bash, zsh or fish)',
    load: async () => (await import('./commands/completion.js')).completionCommand,
  },
  {
    name: 'version',
    summary: 'Show the version of cove and of the deployment',
    load: async () => (await import('./commands/version.js')).versionCommand,
  },
];
