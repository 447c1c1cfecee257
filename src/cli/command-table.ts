import type { CommandEntry } from './command-entry.js';

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
  {
    name: 'publickey',
    aliases: ['pubkey'],
    summary: 'Print your public key for git over SSH in your workspaces',
    load: async () => (await import('./commands/publickey.js')).publickeyCommand,
  },
  {
    name: 'tokens',
    aliases: ['token'],
    summary: 'Create, list and remove API tokens',
    load: async () => (await import('./commands/tokens.js')).tokensCommand,
  },
  {
    name: 'users',
    aliases: ['user'],
    summary: 'List, create, show, suspend, activate and delete users',
    load: async () => (await import('./commands/users.js')).usersCommand,
  },
  {
    name: 'organizations',
    aliases: ['organization', 'org', 'orgs'],
    summary: 'Manage organizations and their members',
    load: async () => (await import('./commands/organizations.js')).organizationsCommand,
  },
  {
    name: 'groups',
    aliases: ['group'],
    summary: 'Create, list, edit and delete groups, list their members, and preview their sync from the OIDC provider',
    load: async () => (await import('./commands/groups.js')).groupsCommand,
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
    name: 'quota',
    summary: "Show the credits a user's workspaces use a day and their budget",
    load: async () => (await import('./commands/quota.js')).quotaCommand,
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
    name: 'logs',
    summary: "Show a workspace's build log and its agents' script logs",
    load: async () => (await import('./commands/logs.js')).logsCommand,
  },
  {
    name: 'rename',
    summary: 'Rename a workspace',
    load: async () => (await import('./commands/workspace-rename.js')).renameCommand,
  },
  {
    name: 'favorite',
    aliases: ['fav', 'favourite'],
    summary: 'Mark a workspace as a favorite, listed first',
    load: async () => (await import('./commands/workspace-favorite.js')).favoriteCommand,
  },
  {
    name: 'unfavorite',
    aliases: ['unfav', 'unfavourite'],
    summary: 'Remove the favorite mark from a workspace',
    load: async () => (await import('./commands/workspace-favorite.js')).unfavoriteCommand,
  },
  {
    name: 'autoupdate',
    summary: "Choose whether a workspace moves to its template's active version when it starts",
    load: async () => (await import('./commands/workspace-autoupdate.js')).autoupdateCommand,
  },
  {
    name: 'state',
    summary: 'Pull and push the provisioner state of workspaces, to repair broken ones',
    load: async () => (await import('./commands/state.js')).stateCommand,
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
  {
    name: 'speedtest',
    summary: 'Measure the throughput to a workspace agent through the relay',
    load: async () => (await import('./commands/speedtest.js')).speedtestCommand,
  },
  {
    name: 'netcheck',
    summary: 'Measure the round trip to the relay regions of the deployment',
    load: async () => (await import('./commands/netcheck.js')).netcheckCommand,
  },
  { name: 'open', summary: 'Print the URL of a workspace app', load: async () => (await import('./commands/open.js')).openCommand },
  {
    name: 'workspaces',
    aliases: ['workspace', 'ws'],
    summary: 'All workspace commands, including cancel',
    load: async () => (await import('./commands/workspaces.js')).workspacesCommand,
  },
  {
    name: 'health',
    summary: "Show the deployment's health report and dismiss sections of it",
    load: async () => (await import('./commands/health.js')).healthCommand,
  },
  {
    name: 'provisioner',
    aliases: ['provisioners'],
    summary: 'Run provisioner daemons, manage their keys and their jobs',
    load: async () => (await import('./commands/provisioner.js')).provisionerCommand,
  },
  {
    name: 'stat',
    summary: 'Show CPU, memory and disk use inside a workspace',
    load: async () => (await import('./commands/stat.js')).statCommand,
  },
  {
    name: 'dotfiles',
    summary: 'Clone a dotfiles repository and install it (inside a workspace)',
    load: async () => (await import('./commands/dotfiles.js')).dotfilesCommand,
  },
  {
    name: 'external-auth',
    summary: 'Link your accounts at external auth providers such as GitHub, and print their tokens',
    load: async () => (await import('./commands/external-auth.js')).externalAuthCommand,
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
    name: 'reset-password',
    summary: "Set a user's password directly in the daemon's database",
    load: async () => (await import('./commands/reset-password.js')).resetPasswordCommand,
  },
  {
    name: 'support',
    summary: 'Collect diagnostics for a support request',
    load: async () => (await import('./commands/support-bundle.js')).supportCommand,
  },
  {
    name: 'insights',
    summary: 'Show daily active users, template usage and user activity',
    load: async () => (await import('./commands/insights.js')).insightsCommand,
  },
  {
    name: 'sharing',
    aliases: ['share'],
    summary: 'Share workspaces with users and groups',
    load: async () => (await import('./commands/sharing.js')).sharingCommand,
  },
  {
    name: 'licenses',
    aliases: ['license'],
    summary: 'Add, list and delete licenses',
    load: async () => (await import('./commands/licenses.js')).licensesCommand,
  },
  {
    name: 'connections',
    summary: 'Show who connected to workspaces (terminals, SSH, ports, apps)',
    load: async () => (await import('./commands/connections.js')).connectionsCommand,
  },
  {
    name: 'features',
    summary: 'Show licensed features',
    load: async () => (await import('./commands/licenses.js')).featuresCommand,
  },
  {
    name: 'notifications',
    aliases: ['notification'],
    summary: 'Pause, resume and test notifications, and list the queue',
    load: async () => (await import('./commands/notifications.js')).notificationsCommand,
  },
  {
    name: 'audit',
    summary: 'Read the audit log',
    load: async () => (await import('./commands/audit.js')).auditCommand,
  },
  {
    name: 'scaletest',
    summary: 'Load a deployment with users, workspaces, terminal traffic and dashboard users, and measure it',
    load: async () => (await import('./commands/scaletest.js')).scaletestCommand,
  },
  {
    name: 'completion',
    summary: 'Print a shell completion script (bash, zsh or fish)',
    // Given the table rather than importing it, which would tie the two files in a circle.
    load: async () => (await import('./commands/completion.js')).completionCommandFor(COMMANDS),
  },
  {
    name: 'version',
    summary: 'Show the version of cove and of the deployment',
    load: async () => (await import('./commands/version.js')).versionCommand,
  },
];
