import { createTar } from '../../src/lib/archive/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import { createOwner, STRONG_PASSWORD, type TestDaemon } from './test-daemon.js';

/**
 * The callers and the data of the access matrix (test/api/access-matrix): who signs in, and the rows
 * their calls act on. The matrix itself, what each caller gets from each route, lives in the test.
 */

/** Callers by role: signed out, plain members, and holders of site and organization roles. */
export const ROLE_SUBJECTS = ['anonymous', 'member', 'otherMember', 'orgAdmin', 'owner', 'auditor', 'templateAdmin', 'userAdmin'] as const;

/**
 * Plain members of the default organization whose reach comes from groups and ACLs: `groupMember`
 * is in `matrix-group`, the one group the restricted template is shared with (`use`); the member's
 * workspaces are shared with `sharedUse` as `use` and with `sharedAdmin` as `admin`.
 */
export const TEAM_SUBJECTS = ['groupMember', 'sharedUse', 'sharedAdmin'] as const;

export const SUBJECTS = [...ROLE_SUBJECTS, ...TEAM_SUBJECTS] as const;
export type RoleSubject = (typeof ROLE_SUBJECTS)[number];
export type TeamSubject = (typeof TEAM_SUBJECTS)[number];
export type Subject = (typeof SUBJECTS)[number];

/**
 * The status each caller gets. The team subjects may be left out where groups and ACLs play no part:
 * they then get what `otherMember` gets, a plain member with no tie to the rows called on.
 */
export type Expectation = Readonly<Record<RoleSubject, number>> & Readonly<Partial<Record<TeamSubject, number>>>;

/** The expectation with the team subjects filled in from `otherMember` where it leaves them out. */
export function everySubject(expect: Expectation): Readonly<Record<Subject, number>> {
  const team = Object.fromEntries(TEAM_SUBJECTS.map((s) => [s, expect[s] ?? expect.otherMember])) as Record<TeamSubject, number>;
  return { ...expect, ...team };
}

/** One call: the path from the root (with `/api/v2`), a JSON body, and a token other than the subject's. */
export interface Call {
  readonly path: string;
  readonly body?: unknown;
  readonly token?: string | undefined;
  /** The answer is a stream: only its status is read. */
  readonly stream?: boolean;
  /** A body that is not JSON. */
  readonly raw?: { readonly contentType: string; readonly body: Buffer };
  /** The Accept header, for routes that answer browsers with pages and API clients with JSON. */
  readonly accept?: string;
  /** The answer is a page for browsers, refusals included: its body is not read as an error body. */
  readonly html?: boolean;
}

/** A template of the default organization with versions `v1` (active) and `v2`. */
export interface MatrixTemplate {
  readonly id: string;
  readonly name: string;
  readonly v1: string;
  readonly v1Job: string;
  readonly v2: string;
  /** The groups' roles on it (`PATCH /templates/{id}/acl`'s `group_perms`), to set again unchanged. */
  readonly groupPerms: Readonly<Record<string, string>>;
}

/** The data every call runs against: the subjects' sessions and the rows they act on. */
export interface World {
  readonly owner: CoveClient;
  readonly tokens: Readonly<Record<Subject, string | undefined>>;
  readonly ids: Readonly<Record<Subject, string>>;
  readonly defaultOrgId: string;
  /** An organization only the owner belongs to. */
  readonly labsOrgId: string;
  readonly memberTokenId: string;
  /** A small valid template archive, and the id of the copy the member uploaded. */
  readonly tar: Buffer;
  readonly memberFileId: string;
  /** The id of `matrix-group`, whose one member is `groupMember`. */
  readonly group: string;
  /** The template template routes are called on: `matrix-template`, which everyone in the organization may use. */
  readonly template: MatrixTemplate;
  /** Its twin made without the Everyone group, shared with `matrix-group` only (`use`). */
  readonly restrictedTemplate: MatrixTemplate;
  /** The member's workspace `member-ws`, with its finished first build, shared with the team subjects. */
  readonly memberWorkspace: { readonly id: string; readonly build: string };
  /** A new workspace of the member's, its first build finished, shared like `member-ws`. */
  freshMemberWorkspace(): Promise<string>;
  /** A finished dry run of `v1` by the owner. */
  readonly ownerDryRun: string;
  /** A newly imported version: of the template given, or of none yet. */
  freshVersion(templateId?: string): Promise<string>;
  /** A new template of the owner's, in the default organization. */
  freshTemplate(): Promise<string>;
  /** A new template restricted as `restrictedTemplate` is. */
  freshRestrictedTemplate(): Promise<string>;
  /** A fresh active user in the default organization, for calls that change or remove one. */
  freshUser(): Promise<{ id: string; username: string; email: string }>;
  freshOrganization(): Promise<{ id: string; name: string }>;
  freshSession(subject: Subject): Promise<string | undefined>;
  /** Shares a workspace with the team subjects as `member-ws` is. */
  shareWithTeam(workspaceId: string): Promise<void>;
  unique(prefix: string): string;
}

const METHODS_WITH_BODY = new Set(['POST', 'PUT', 'PATCH']);

/** Sends one call as it is, and answers its status and body. */
export async function send(url: string, method: string, call: Call): Promise<{ status: number; body: string }> {
  const headers: Record<string, string> = {};
  if (call.token) headers['service-session-token'] = call.token;
  if (call.accept) headers['accept'] = call.accept;
  let body: string | Buffer | undefined;
  if (call.raw) {
    headers['content-type'] = call.raw.contentType;
    body = call.raw.body;
  } else if (call.body !== undefined || METHODS_WITH_BODY.has(method)) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(call.body ?? {});
  }
  const controller = new AbortController();
  const response = await fetch(`${url}${call.path}`, {
    method,
    headers,
    signal: controller.signal,
    ...(body !== undefined ? { body } : {}),
  });
  if (call.stream && response.ok) {
    controller.abort();
    return { status: response.status, body: '' };
  }
  return { status: response.status, body: await response.text() };
}

/** An agent in a workspace of the member's, made on first use (the shared world's template has none). */
const memberAgents = new WeakMap<World, Promise<string>>();
export function memberAgent(world: World): Promise<string> {
  let agent = memberAgents.get(world);
  if (!agent) {
    agent = (async () => {
      const echo = { apply: { resources: [{ name: 'box', agents: [{ name: 'main' }] }] } };
      const file = await world.owner.uploadFile(await createTar({ 'echo.json': JSON.stringify(echo) }));
      const version = await world.owner.createTemplateVersion(world.defaultOrgId, { file_id: file.id });
      await world.owner.followTemplateVersionLogs(version.id, () => undefined);
      const template = await world.owner.createTemplate(world.defaultOrgId, {
        name: world.unique('agent-template'),
        template_version_id: version.id,
      });
      const member = world.owner.withToken(world.tokens.member);
      const workspace = await member.createWorkspace('me', { name: world.unique('agent-ws'), template_id: template.id });
      await member.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
      await world.shareWithTeam(workspace.id);
      const build = await member.workspaceBuild(workspace.latest_build.id);
      const id = build.resources.flatMap((r) => r.agents)[0]?.id;
      if (!id) throw new Error('the agent template made no agent');
      return id;
    })();
    memberAgents.set(world, agent);
  }
  return agent;
}

export async function buildWorld(test: TestDaemon): Promise<World> {
  const owner = await createOwner(test);
  const defaultOrgId = test.daemon.identity.defaultOrganization.id;
  let counter = 0;
  const unique = (prefix: string) => `${prefix}-${++counter}`;
  const createUser = async (username: string, siteRoles: readonly string[] = []) => {
    const user = await owner.createUser({
      email: `${username}@example.com`,
      username,
      password: STRONG_PASSWORD,
      user_status: 'active',
      organization_ids: [defaultOrgId],
    });
    if (siteRoles.length > 0) await owner.setSiteRoles(user.id, [...siteRoles]);
    return user;
  };
  const login = async (username: string) => (await test.anonymous.login(`${username}@example.com`, STRONG_PASSWORD)).session_token;
  // Groups and ACLs are set through the routes themselves, with the owner's session.
  const asOwner = async (method: string, path: string, body: unknown): Promise<unknown> => {
    const answer = await send(test.url, method, { path: `/api/v2${path}`, body, token: owner.token });
    if (answer.status >= 300) throw new Error(`${method} ${path}: ${answer.status} ${answer.body}`);
    return answer.body === '' ? undefined : JSON.parse(answer.body);
  };

  const usernames: Record<Exclude<Subject, 'anonymous'>, string> = {
    member: 'member',
    otherMember: 'other-member',
    orgAdmin: 'org-admin',
    owner: 'owner',
    auditor: 'auditor',
    templateAdmin: 'template-admin',
    userAdmin: 'user-admin',
    groupMember: 'group-member',
    sharedUse: 'shared-use',
    sharedAdmin: 'shared-admin',
  };
  const ids: Record<string, string> = { anonymous: '', owner: (await owner.user('me')).id };
  for (const [subject, siteRoles] of [
    ['member', []],
    ['otherMember', []],
    ['orgAdmin', []],
    ['auditor', ['auditor']],
    ['templateAdmin', ['template-admin']],
    ['userAdmin', ['user-admin']],
    ['groupMember', []],
    ['sharedUse', []],
    ['sharedAdmin', []],
  ] as const) {
    ids[subject] = (await createUser(usernames[subject], siteRoles)).id;
  }
  await owner.setMemberRoles(defaultOrgId, usernames.orgAdmin, ['organization-admin']);
  const group = (await asOwner('POST', `/organizations/${defaultOrgId}/groups`, {
    name: 'matrix-group',
    display_name: 'Matrix group',
    avatar_url: '',
    quota_allowance: 0,
  })) as { id: string };
  await asOwner('PATCH', `/groups/${group.id}`, { add_users: [ids['groupMember']], remove_users: [] });
  const tokens: Record<string, string | undefined> = { anonymous: undefined };
  for (const [subject, username] of Object.entries(usernames)) tokens[subject] = await login(username);

  const labs = await owner.createOrganization({ name: 'labs' });
  const member = owner.withToken(tokens['member'] ?? '');
  const token = await member.createToken({ token_name: 'matrix-token' });
  await owner.createCustomRole(defaultOrgId, { name: 'matrix-role', organization_permissions: [] });
  const tar = await createTar({ 'echo.json': '{}' });
  const memberFile = await member.uploadFile(await createTar({ 'echo.json': '{"parse": {}}' }));

  const echoFile = (await owner.uploadFile(await createTar({ 'echo.json': '{"parse": {"readme": "matrix"}}' }))).id;
  const freshVersion = async (templateId?: string, name?: string) => {
    const version = await owner.createTemplateVersion(defaultOrgId, {
      file_id: echoFile,
      ...(templateId ? { template_id: templateId } : {}),
      ...(name ? { name } : {}),
    });
    await owner.followTemplateVersionLogs(version.id, () => undefined);
    return version;
  };
  const matrixTemplate = async (name: string, groupPerms: Record<string, string> | null): Promise<MatrixTemplate> => {
    const restricted = groupPerms !== null;
    const v1 = await freshVersion(undefined, 'v1');
    const template = await owner.createTemplate(defaultOrgId, {
      name,
      template_version_id: v1.id,
      ...(restricted ? { disable_everyone_group_access: true } : {}),
    });
    test.clock.advance(1000);
    const v2 = await freshVersion(template.id, 'v2');
    if (groupPerms) await asOwner('PATCH', `/templates/${template.id}/acl`, { user_perms: {}, group_perms: groupPerms });
    return { id: template.id, name, v1: v1.id, v1Job: v1.job.id, v2: v2.id, groupPerms: groupPerms ?? { [defaultOrgId]: 'use' } };
  };
  const template = await matrixTemplate('matrix-template', null);
  const restrictedTemplate = await matrixTemplate('matrix-restricted', { [group.id]: 'use' });
  const dryRun = await owner.createDryRun(template.v1, { workspace_name: 'matrix' });
  for (let status = dryRun.status; status !== 'succeeded'; status = (await owner.dryRun(template.v1, dryRun.id)).status) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const shareWithTeam = async (workspaceId: string) => {
    await asOwner('PATCH', `/workspaces/${workspaceId}/acl`, {
      user_roles: { [ids['sharedUse'] ?? '']: 'use', [ids['sharedAdmin'] ?? '']: 'admin' },
      group_roles: {},
    });
  };
  const memberWorkspace = async (name: string) => {
    const workspace = await member.createWorkspace('me', { name, template_id: template.id });
    await member.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    await shareWithTeam(workspace.id);
    return { id: workspace.id, build: workspace.latest_build.id };
  };
  const memberWs = await memberWorkspace('member-ws');

  return {
    owner,
    template,
    restrictedTemplate,
    group: group.id,
    ownerDryRun: dryRun.id,
    memberWorkspace: memberWs,
    freshMemberWorkspace: async () => (await memberWorkspace(unique('member-fresh'))).id,
    freshVersion: async (templateId) => (await freshVersion(templateId)).id,
    freshTemplate: async () =>
      (await owner.createTemplate(defaultOrgId, { name: unique('doomed-template'), template_version_id: (await freshVersion()).id })).id,
    freshRestrictedTemplate: async () => {
      const { id } = await owner.createTemplate(defaultOrgId, {
        name: unique('doomed-restricted'),
        template_version_id: (await freshVersion()).id,
        disable_everyone_group_access: true,
      });
      await asOwner('PATCH', `/templates/${id}/acl`, { user_perms: {}, group_perms: restrictedTemplate.groupPerms });
      return id;
    },
    tokens: tokens as Record<Subject, string | undefined>,
    ids: ids as Record<Subject, string>,
    defaultOrgId,
    labsOrgId: labs.id,
    memberTokenId: token.key.split('-')[0] ?? '',
    tar,
    memberFileId: memberFile.id,
    unique,
    shareWithTeam,
    freshUser: async () => {
      const username = unique('target');
      const user = await createUser(username);
      return { id: user.id, username, email: user.email };
    },
    freshOrganization: async () => {
      const organization = await owner.createOrganization({ name: unique('doomed-org') });
      return { id: organization.id, name: organization.name };
    },
    freshSession: async (subject) => (subject === 'anonymous' ? undefined : login(usernames[subject])),
  };
}
