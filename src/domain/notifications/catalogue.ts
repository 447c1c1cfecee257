/**
 * The kinds of notification Cove sends. Ids are stable (preferences and method overrides name
 * them); where the reference has the same kind, the id is the reference's, so that its clients'
 * preferences carry over.
 *
 * Text: `{{name}}` is replaced by the label `name` of the message (labels are strings the event
 * gives: `workspace`, `owner`, `template`, `reason`, ...), and `{{access_url}}` by the deployment's
 * access URL. Titles are one line; bodies are plain text paragraphs (the e-mail's HTML part is made
 * from them, escaped). Action URLs are absolute once rendered.
 */
export interface NotificationKind {
  readonly id: string;
  readonly name: string;
  readonly group: 'Workspace Events' | 'User Events' | 'Template Events' | 'Notification Events';
  readonly title: string;
  readonly body: string;
  readonly actions: readonly { readonly label: string; readonly url: string }[];
  /** Off until a user turns it on, when false. */
  readonly enabledByDefault: boolean;
}

const WORKSPACE_URL = '{{access_url}}/@{{owner}}/{{workspace}}';

/** Every kind, by a name the code uses. */
export const NOTIFICATION_KINDS = {
  workspaceAutostopWarning: {
    id: '6b3a2c1e-5d4f-4e8a-9b7c-0a1d2e3f4a51',
    name: 'Workspace Autostop Warning',
    group: 'Workspace Events',
    title: 'Workspace "{{workspace}}" will stop at {{deadline}}',
    body: 'Your workspace {{workspace}} will stop automatically at {{deadline}} ({{remaining}} from now). Extend it to keep working.',
    actions: [
      { label: 'Extend by 1 hour', url: '{{access_url}}/@{{owner}}/{{workspace}}?extend=1h' },
      { label: 'View workspace', url: WORKSPACE_URL },
    ],
    enabledByDefault: true,
  },
  workspaceAutoStopped: {
    id: '7c4b3d2f-6e5a-4f9b-8c8d-1b2e3f4a5b62',
    name: 'Workspace Stopped Automatically',
    group: 'Workspace Events',
    title: 'Workspace "{{workspace}}" was stopped',
    body: 'Your workspace {{workspace}} was stopped automatically: {{reason}}.',
    actions: [{ label: 'View workspace', url: WORKSPACE_URL }],
    enabledByDefault: true,
  },
  workspaceDeleted: {
    id: 'f517da0b-cdc9-410f-ab89-a86107c420ed',
    name: 'Workspace Deleted',
    group: 'Workspace Events',
    title: 'Workspace "{{workspace}}" deleted',
    body: 'Your workspace {{workspace}} was deleted: {{reason}}.',
    actions: [{ label: 'View workspaces', url: '{{access_url}}/workspaces' }],
    enabledByDefault: true,
  },
  workspaceDormant: {
    id: '0ea69165-ec14-4314-91f1-69566ac3c5a0',
    name: 'Workspace Marked as Dormant',
    group: 'Workspace Events',
    title: 'Workspace "{{workspace}}" marked as dormant',
    body: 'Your workspace {{workspace}} was marked dormant: {{reason}}. Open it from the dashboard to use it again.',
    actions: [{ label: 'View workspace', url: WORKSPACE_URL }],
    enabledByDefault: true,
  },
  workspaceMarkedForDeletion: {
    id: '51ce2fdf-c9ca-4be1-8d70-628674f9bc42',
    name: 'Workspace Marked for Deletion',
    group: 'Workspace Events',
    title: 'Workspace "{{workspace}}" marked for deletion',
    body: 'Your workspace {{workspace}} will be deleted on {{deletingAt}}: {{reason}}. Use it before then to keep it.',
    actions: [{ label: 'View workspace', url: WORKSPACE_URL }],
    enabledByDefault: true,
  },
  workspaceAutobuildFailed: {
    id: '381df2a9-c0c0-4749-420f-80a9280c66f9',
    name: 'Workspace Autobuild Failed',
    group: 'Workspace Events',
    title: 'Workspace "{{workspace}}" autobuild failed',
    body: 'The automatic {{transition}} ({{buildReason}}) of your workspace {{workspace}}, build {{buildNumber}}, failed: {{reason}}.',
    actions: [{ label: 'View workspace', url: WORKSPACE_URL }],
    enabledByDefault: true,
  },
  workspaceManualBuildFailed: {
    id: '2faeee0f-26cb-4e96-821c-85ccb9f71513',
    name: 'Workspace Manual Build Failed',
    group: 'Workspace Events',
    title: 'Workspace "{{workspace}}" {{transition}} failed',
    body: 'Build {{buildNumber}} ({{transition}}) of workspace {{workspace}}, started by {{initiator}}, failed: {{reason}}.',
    actions: [{ label: 'View workspace', url: WORKSPACE_URL }],
    enabledByDefault: true,
  },
  workspaceOutOfDate: {
    id: '8d5c4e3a-7f6b-4a0c-9d9e-2c3f4a5b6c73',
    name: 'Workspace Out of Date',
    group: 'Workspace Events',
    title: 'A new version of template "{{template}}" is available',
    body: 'Template {{template}} has a new active version, {{version}}. Your workspace {{workspace}} runs an older one; update it to use the new one.',
    actions: [{ label: 'View workspace', url: WORKSPACE_URL }],
    enabledByDefault: true,
  },
  templateDeprecated: {
    id: 'f40fae84-55a2-42cd-99fa-b41c1ca64894',
    name: 'Template Deprecated',
    group: 'Template Events',
    title: 'Template "{{template}}" deprecated',
    body: 'Template {{template}}, which your workspaces use, was deprecated: {{message}}.',
    actions: [{ label: 'View workspaces', url: '{{access_url}}/workspaces?filter=owner:me+template:{{templateName}}' }],
    enabledByDefault: true,
  },
  templateDeleted: {
    id: '29a09665-2a4c-403f-9648-54301670e7be',
    name: 'Template Deleted',
    group: 'Template Events',
    title: 'Template "{{template}}" deleted',
    body: 'Template {{template}} was deleted by {{initiator}}.',
    actions: [{ label: 'View templates', url: '{{access_url}}/templates' }],
    enabledByDefault: true,
  },
  workspaceBuildsFailedReport: {
    id: '34a20db2-e9cc-4a93-b0e4-8569699d7a00',
    name: 'Report: Workspace Builds Failed',
    group: 'Template Events',
    title: 'Workspace builds failed for template "{{template}}"',
    body: '{{failedBuilds}} of {{totalBuilds}} builds of template {{template}} failed between {{reportStart}} and {{reportEnd}}:\n{{failures}}',
    actions: [{ label: 'View template', url: '{{access_url}}/templates/{{templateName}}' }],
    enabledByDefault: true,
  },
  userAccountCreated: {
    id: '4e19c0ac-94e1-4532-9515-d1801aa283b2',
    name: 'User Account Created',
    group: 'User Events',
    title: 'User account "{{createdAccount}}" created',
    body: 'User account {{createdAccount}} was created by {{initiator}}.',
    actions: [{ label: 'View deployment', url: '{{access_url}}/deployment' }],
    enabledByDefault: true,
  },
  userAccountSuspended: {
    id: 'b02ddd82-4733-4d02-a2d7-c36f3598997d',
    name: 'User Account Suspended',
    group: 'User Events',
    title: 'User account "{{suspendedAccount}}" suspended',
    body: 'User account {{suspendedAccount}} was suspended by {{initiator}}.',
    actions: [{ label: 'View deployment', url: '{{access_url}}/deployment' }],
    enabledByDefault: true,
  },
  userAccountActivated: {
    id: '9f5af851-8408-4e73-a7a1-c6502ba46689',
    name: 'User Account Activated',
    group: 'User Events',
    title: 'User account "{{activatedAccount}}" activated',
    body: 'User account {{activatedAccount}} was activated by {{initiator}}.',
    actions: [{ label: 'View deployment', url: '{{access_url}}/deployment' }],
    enabledByDefault: true,
  },
  yourAccountSuspended: {
    id: '6a2f0609-9b69-4d36-a989-9f5925b6cbff',
    name: 'Your Account Suspended',
    group: 'User Events',
    title: 'Your account "{{suspendedAccount}}" has been suspended',
    body: 'Your account {{suspendedAccount}} was suspended by {{initiator}}.',
    actions: [],
    enabledByDefault: true,
  },
  yourAccountActivated: {
    id: '1a6a6bea-ee0a-43e2-9e7c-eabdb53730e4',
    name: 'Your Account Activated',
    group: 'User Events',
    title: 'Your account "{{activatedAccount}}" has been activated',
    body: 'Your account {{activatedAccount}} was activated by {{initiator}}.',
    actions: [{ label: 'Open Cove', url: '{{access_url}}' }],
    enabledByDefault: true,
  },
  testNotification: {
    id: 'c425f63e-716a-4bf4-ae24-78348f706c3f',
    name: 'Test Notification',
    group: 'Notification Events',
    title: 'A test notification',
    body: 'Hi {{user}}, this is a test notification from {{access_url}}: the deployment can reach you.',
    actions: [{ label: 'View notification settings', url: '{{access_url}}/deployment/notifications' }],
    enabledByDefault: true,
  },
} as const satisfies Record<string, NotificationKind>;

/** A kind's name in code. */
export type NotificationKindName = keyof typeof NOTIFICATION_KINDS;

/** A kind by id, for ids users and operators send. */
export function notificationKindById(id: string): NotificationKind | undefined {
  return Object.values(NOTIFICATION_KINDS).find((kind) => kind.id === id);
}
