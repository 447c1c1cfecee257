import { viewJobs, type JobView } from '../domain/provisioner-job-views.js';
import type { Workspace, WorkspaceAgent, WorkspaceBuild, WorkspaceResource } from '../sdk/wire/index.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { CreatedBuild, CreatedWorkspace } from '../domain/workspace-builds.js';
import { NotFoundError } from '../lib/errors.js';
import type {
  AgentWithOwners,
  JobRelations,
  KnownJobRelations,
  OrganizationQueue,
  ProvisionerJobRow,
  TemplateRow,
  TemplateVersionRow,
  UserName,
  WorkspaceBuildRow,
  WorkspaceDetails,
  WorkspaceRow,
} from '../store/rows.js';
import type { AppLabelNames } from './apps/app-request.js';
import type { ApiContext } from './context.js';
import { toWireAgent } from './convert/workspace-agent.js';
import { toWireBuild } from './convert/workspace-build.js';
import { toWireResource } from './convert/workspace-resource.js';
import { toWireWorkspace } from './convert/workspace.js';

/**
 * Builds the API's answers for workspaces and builds: the related rows of a whole page are read in
 * a fixed number of queries, then each row is converted on its own.
 */

/** The related rows of a page, with the jobs viewed and the resources answered, keyed for lookup. */
interface Page {
  readonly details: WorkspaceDetails;
  readonly jobs: ReadonlyMap<string, JobView>;
  /** Each build job's resources as the API shows them, agents included. */
  readonly resources: ReadonlyMap<string, WorkspaceResource[]>;
}

async function loadPage(
  context: ApiContext,
  store: AuthorizedStore,
  builds: readonly WorkspaceBuildRow[],
  workspaces: readonly WorkspaceRow[],
  read?: WorkspaceDetails,
): Promise<Page> {
  const details = read ?? (await store.workspaces.listDetails(workspaces, builds));
  const now = context.store.clock.now();
  const views = await viewJobs(store, [...details.jobs.values()], now, knownRelations(builds, workspaces, details));
  const labels = appLabelNames(context, builds, workspaces, details);
  const resources = new Map<string, WorkspaceResource[]>();
  for (const [jobId, rows] of details.resources) {
    resources.set(
      jobId,
      rows.map((row) =>
        toWireResource(
          row,
          (details.agents.get(row.id) ?? []).map((agent) =>
            toWireAgent(row.id, agent, reportsOf(details, agent.id), now, labels.get(jobId)),
          ),
        ),
      ),
    );
  }
  return { details, jobs: new Map(views.map((view) => [view.row.id, view])), resources };
}

/** The builds and versions the page has read, so that viewing its jobs does not read them again. */
function knownRelations(
  builds: readonly WorkspaceBuildRow[],
  workspaces: readonly WorkspaceRow[],
  details: WorkspaceDetails,
): KnownJobRelations {
  const byId = new Map(workspaces.map((w) => [w.id, w]));
  const knownBuilds = new Map<string, { workspace_id: string; workspace_name: string; template_version_id: string }>();
  for (const build of builds) {
    const workspace = byId.get(build.workspace_id);
    if (workspace) {
      knownBuilds.set(build.id, {
        workspace_id: workspace.id,
        workspace_name: workspace.name,
        template_version_id: build.template_version_id,
      });
    }
  }
  const versions = new Map<string, NonNullable<ReturnType<JobRelations['versions']['get']>>>();
  for (const version of details.versions.values()) {
    const template = version.template_id === null ? undefined : details.templates.get(version.template_id);
    // A version whose template the page did not read is left to the job view to read.
    if (version.template_id !== null && !template) continue;
    versions.set(version.id, {
      version_name: version.name,
      template_id: template?.id ?? null,
      template_name: template?.name ?? null,
      template_display_name: template?.display_name ?? null,
      template_icon: template?.icon ?? null,
    });
  }
  const organizationIds = new Set(workspaces.map((workspace) => workspace.organization_id));
  const daemonsOf = details.daemons && { organizationIds, daemons: details.daemons };
  const queuedOf = details.queued && { jobIds: new Set(details.jobs.keys()), queued: details.queued };
  return { builds: knownBuilds, versions, daemonsOf, queuedOf };
}

function reportsOf(details: WorkspaceDetails, agentId: string) {
  return { sources: details.logSources.get(agentId) ?? [], statuses: details.appStatuses.get(agentId) ?? [] };
}

function answerBuild(build: WorkspaceBuildRow, workspace: WorkspaceRow, page: Page): WorkspaceBuild | undefined {
  const job = page.jobs.get(build.job_id);
  if (!job) return undefined;
  return toWireBuild(build, workspace, {
    owner: page.details.users.get(workspace.owner_id),
    initiator: page.details.users.get(build.initiator_id),
    versionName: page.details.versions.get(build.template_version_id)?.name ?? '',
    job,
    resources: page.resources.get(build.job_id) ?? [],
  });
}

/** Builds as the API shows them, with their jobs, resources and names. */
export async function answerBuilds(
  context: ApiContext,
  store: AuthorizedStore,
  builds: readonly WorkspaceBuildRow[],
  workspaces: readonly WorkspaceRow[],
): Promise<WorkspaceBuild[]> {
  const page = await loadPage(context, store, builds, workspaces);
  const byId = new Map(workspaces.map((w) => [w.id, w]));
  return builds.flatMap((build) => {
    const workspace = byId.get(build.workspace_id);
    const answer = workspace ? answerBuild(build, workspace, page) : undefined;
    return answer ? [answer] : [];
  });
}

/**
 * Workspaces as the API shows them, each with its latest build; `known` has the latest builds when
 * the caller has read them already (from the same store), and `details` what the store's
 * workspaces.listDetails answers for exactly these workspaces and builds, when read already.
 */
export async function answerWorkspaces(
  context: ApiContext,
  store: AuthorizedStore,
  workspaces: readonly WorkspaceRow[],
  known?: ReadonlyMap<string, WorkspaceBuildRow>,
  details?: WorkspaceDetails,
): Promise<Workspace[]> {
  if (workspaces.length === 0) return [];
  const latest = known ?? (await store.workspaceBuilds.listLatest(workspaces));
  const page = await loadPage(context, store, [...latest.values()], workspaces, details);
  const now = context.store.clock.now();
  return workspaces.flatMap((workspace) => {
    const build = latest.get(workspace.id);
    const template = page.details.templates.get(workspace.template_id);
    const latestBuild = build && answerBuild(build, workspace, page);
    if (!latestBuild || !template) return [];
    return [wireWorkspace(context, workspace, page.details, template, latestBuild, { now, requesterId: store.subject.id })];
  });
}

/** One workspace as the API shows it, from its latest build's answer and the details read for it. */
function wireWorkspace(
  context: ApiContext,
  workspace: WorkspaceRow,
  details: WorkspaceDetails,
  template: TemplateRow,
  latestBuild: WorkspaceBuild,
  view: { readonly now: Date; readonly requesterId: string },
): Workspace {
  return toWireWorkspace(workspace, {
    owner: details.users.get(workspace.owner_id),
    organizationName: details.organizationNames.get(workspace.organization_id) ?? '',
    template,
    latestBuild,
    latestAppStatus: details.latestAppStatuses.get(workspace.id),
    allowRenames: context.values.allowWorkspaceRenames,
    ...view,
  });
}

/**
 * The answer to creating a workspace, from the rows the creation wrote and read: a new workspace
 * has no resources, agents or app statuses yet, and its owner, initiator, template and version are
 * at hand, and the queue the job's place is counted from was read with the insert. Only the
 * organization's name may be left to read, so a create costs at most a query here rather than the
 * thirteen of reading the workspace back.
 */
export async function answerCreatedWorkspace(
  context: ApiContext,
  store: AuthorizedStore,
  created: CreatedWorkspace,
  people: { readonly owner: UserName; readonly initiator: UserName },
): Promise<Workspace> {
  const { workspace, build, job, template, version } = created;
  store.workspaces.authorize('read', workspace);
  const known = newBuildDetails(workspace, { job, template, version, queue: created.queue, users: [people.owner, people.initiator] });
  const [page, organization] = await Promise.all([
    newBuildPage(context, store, workspace, build, known),
    created.organization ?? store.organizations.get(workspace.organization_id),
  ]);
  const details: WorkspaceDetails = { ...known, organizationNames: new Map([[organization.id, organization.name]]) };
  const latestBuild = answerBuild(build, workspace, { ...page, details });
  if (!latestBuild) throw new NotFoundError('workspace build');
  return wireWorkspace(context, workspace, details, template, latestBuild, {
    now: context.store.clock.now(),
    requesterId: store.subject.id,
  });
}

/**
 * The answer to queuing a build, from the rows the insert wrote and read (see answerCreatedWorkspace);
 * read back like any build when the insert read nothing.
 */
export async function answerCreatedBuild(
  context: ApiContext,
  store: AuthorizedStore,
  workspace: WorkspaceRow,
  created: CreatedBuild,
): Promise<WorkspaceBuild> {
  const { build, job, template, version, reads } = created;
  const answer = reads
    ? answerBuild(
        build,
        workspace,
        await newBuildPage(context, store, workspace, build, newBuildDetails(workspace, { job, template, version, ...reads })),
      )
    : (await answerBuilds(context, store, [build], [workspace]))[0];
  if (!answer) throw new NotFoundError('workspace build');
  return answer;
}

/** The details of a workspace's new build, from what made it: no resources, agents or reports yet. */
function newBuildDetails(
  workspace: WorkspaceRow,
  known: {
    readonly job: ProvisionerJobRow;
    readonly template: TemplateRow;
    readonly version: TemplateVersionRow;
    readonly queue: OrganizationQueue | undefined;
    readonly users: readonly UserName[];
  },
): WorkspaceDetails {
  return {
    users: new Map(known.users.map((user) => [user.id, user])),
    versions: new Map([[known.version.id, known.version]]),
    jobs: new Map([[known.job.id, known.job]]),
    resources: new Map(),
    agents: new Map(),
    logSources: new Map(),
    appStatuses: new Map(),
    templates: new Map([[known.template.id, known.template]]),
    organizationNames: new Map(),
    latestAppStatuses: new Map(),
    daemons: known.queue?.daemons,
    queued: known.queue && new Map([[known.job.id, known.queue.counts]]),
  };
}

/** A page of one new build, its job viewed from the details known of it. */
async function newBuildPage(
  context: ApiContext,
  store: AuthorizedStore,
  workspace: WorkspaceRow,
  build: WorkspaceBuildRow,
  details: WorkspaceDetails,
): Promise<Page> {
  const job = details.jobs.get(build.job_id);
  const views = job ? await viewJobs(store, [job], context.store.clock.now(), knownRelations([build], [workspace], details)) : [];
  return { details, jobs: new Map(views.map((view) => [view.row.id, view])), resources: new Map() };
}

/** Per build job, the names subdomain app labels are made of; none when the deployment serves no subdomain apps. */
function appLabelNames(
  context: ApiContext,
  builds: readonly WorkspaceBuildRow[],
  workspaces: readonly WorkspaceRow[],
  details: WorkspaceDetails,
): Map<string, AppLabelNames> {
  const labels = new Map<string, AppLabelNames>();
  if (context.values.wildcardAccessUrl === '') return labels;
  const byId = new Map(workspaces.map((w) => [w.id, w]));
  for (const build of builds) {
    const workspace = byId.get(build.workspace_id);
    const owner = workspace ? details.users.get(workspace.owner_id) : undefined;
    if (workspace && owner) labels.set(build.job_id, { workspace: workspace.name, owner: owner.username });
  }
  return labels;
}

/** One agent as `GET /workspaceagents/{id}` shows it. */
export async function answerAgent(context: ApiContext, store: AuthorizedStore, found: AgentWithOwners): Promise<WorkspaceAgent> {
  const details = await store.workspaces.listDetails([found.workspace], [found.build]);
  const owner = details.users.get(found.workspace.owner_id);
  const labels = context.values.wildcardAccessUrl !== '' && owner ? { workspace: found.workspace.name, owner: owner.username } : undefined;
  return toWireAgent(found.resource.id, found.agent, reportsOf(details, found.agent.id), context.store.clock.now(), labels);
}
