import { StoreFamily } from './store-family.js';
import { workspaceRbac } from '../rbac-objects.js';
import { listFilter, orgScoped } from '../../rbac/index.js';
import { isUuid } from '../../lib/random.js';
import { NotFoundError } from '../../lib/errors.js';
import * as workspaces from '../queries/workspaces.js';
import * as agents from '../queries/workspace-agents.js';
import * as appStatuses from '../queries/workspace-app-statuses.js';
import * as agentMetadata from '../queries/workspace-agent-metadata.js';

/** Workspace agents, as users and the agents themselves reach them. */
export class WorkspaceAgentStore extends StoreFamily {
  /** An agent with its resource, build and workspace; needs `read` on the workspace. */
  async get(id: string): Promise<agents.AgentWithOwners> {
    const found = isUuid(id) ? await agents.getAgentById(this.db, id) : undefined;
    if (!found) throw new NotFoundError('workspace agent');
    this.require('read', workspaceRbac(found.workspace));
    return found;
  }

  /**
   * Throws unless the subject may reach into the agent's workspace: terminals, SSH, port forwarding
   * and other relay streams (`ssh` on the workspace). Reading the agent is checked first, so a
   * workspace the subject cannot see stays not found.
   */
  authorizeConnect(found: agents.AgentWithOwners): void {
    this.require('read', workspaceRbac(found.workspace));
    this.require('ssh', workspaceRbac(found.workspace));
  }

  /** An agent's log lines, ascending by id within (after, before); needs `read` on its workspace. */
  async logs(
    found: agents.AgentWithOwners,
    range: { readonly after?: number | undefined; readonly before?: number | undefined },
  ): Promise<agents.AgentLogRow[]> {
    this.require('read', workspaceRbac(found.workspace));
    return agents.listAgentLogs(this.db, found.agent.id, range);
  }

  /**
   * The agent whose token hashes to `hash`, with what it belongs to; undefined when none has it.
   * Needs `read` on its workspace.
   */
  async getByTokenHash(hash: string): Promise<agents.AgentWithOwners | undefined> {
    const found = await agents.getAgentByTokenHash(this.db, hash);
    if (found) this.require('read', workspaceRbac(found.workspace));
    return found;
  }

  /**
   * The agent whose token hashes to `hash`, and whether it may still act for its workspace (see
   * `isBuildCurrent`); undefined when no agent has that token. With `cached`, an
   * agent that a recent lookup found current comes from the cache without a query: its rows are
   * then as they were at that lookup, which serves routes that need only who the agent is and
   * what it belongs to. Every lookup refreshes the cache. Needs `read` on the agent's workspace.
   */
  async authenticate(
    hash: string,
    options: { readonly cached: boolean },
  ): Promise<{ readonly found: agents.AgentWithOwners; readonly current: boolean } | undefined> {
    const cache = this.store.agentAuths;
    if (options.cached) {
      const found = cache.get(hash, this.store.clock.now().getTime());
      if (found) {
        this.require('read', workspaceRbac(found.workspace));
        return { found, current: true };
      }
    }
    const generation = cache.generation;
    const found = await this.getByTokenHash(hash);
    if (!found) return undefined;
    const current = await this.isBuildCurrent(found);
    if (current) cache.set(hash, found, this.store.clock.now().getTime(), generation);
    return { found, current };
  }

  /**
   * Whether the agent may still act for its workspace: its build is the newest of a live workspace,
   * or the newest is the unfinished stop or delete that is shutting it down. Needs `read`.
   */
  async isBuildCurrent(found: agents.AgentWithOwners): Promise<boolean> {
    this.require('read', workspaceRbac(found.workspace));
    return agents.agentBuildIsCurrent(this.db, found.workspace.id, found.build.id);
  }

  /** Whether the agent's build is the newest build of its workspace, which is not deleted; needs `read`. */
  async isBuildLatest(found: agents.AgentWithOwners): Promise<boolean> {
    this.require('read', workspaceRbac(found.workspace));
    return agents.isLatestLiveBuild(this.db, found.workspace.id, found.build.id);
  }

  /** The agent's row as it is now; undefined once it is gone. Needs `read` on its workspace. */
  async getRow(found: agents.AgentWithOwners): Promise<agents.AgentRow | undefined> {
    this.require('read', workspaceRbac(found.workspace));
    return agents.getAgentRow(this.db, found.agent.id);
  }

  /** Records what an agent reports of itself (connection, startup, lifecycle, app health, stats); needs `update`. */
  async updateReport(found: agents.AgentWithOwners, report: agents.AgentReport): Promise<void> {
    this.require('update', workspaceRbac(found.workspace));
    await agents.updateAgent(this.db, found.agent.id, report);
  }

  /**
   * Marks the agent disconnected as its socket on the replica at `relayUrl` closes, unless it has
   * already reconnected through another replica, which now holds it. Needs `update`.
   */
  async markDisconnected(found: agents.AgentWithOwners, relayUrl: string): Promise<void> {
    this.require('update', workspaceRbac(found.workspace));
    await agents.markAgentDisconnected(this.db, found.agent.id, relayUrl, this.store.nowIso());
  }

  /** Records how one of the agent's scripts ran; needs `update` on its workspace. */
  async insertScriptTiming(found: agents.AgentWithOwners, timing: Omit<agents.AgentScriptTimingRow, 'agent_id'>): Promise<void> {
    this.require('update', workspaceRbac(found.workspace));
    await agents.insertScriptTiming(this.db, { ...timing, agent_id: found.agent.id });
  }

  /**
   * Stores a batch of the agent's logs, all or nothing, against its limit (see
   * `agents.appendAgentLogs`); throws NotFoundError when the agent is gone. Needs `update`.
   */
  async appendLogs(found: agents.AgentWithOwners, batch: agents.AgentLogBatch): Promise<agents.AgentLogAppendOutcome> {
    this.require('update', workspaceRbac(found.workspace));
    const outcome = await this.store.agentLogWriter.append(found.agent.id, batch);
    if (!outcome) throw new NotFoundError('workspace agent');
    return outcome;
  }

  /** Records a source of the agent's logs, or renames it (it keeps its creation time); needs `update`. */
  async upsertLogSource(found: agents.AgentWithOwners, source: Omit<agents.AgentLogSourceRow, 'agent_id'>): Promise<void> {
    this.require('update', workspaceRbac(found.workspace));
    await agents.upsertLogSource(this.db, { ...source, agent_id: found.agent.id });
  }

  /** The latest result of each of the agent's metadata items it has reported; needs `read` on its workspace. */
  async metadata(found: agents.AgentWithOwners): Promise<agentMetadata.AgentMetadataRow[]> {
    this.require('read', workspaceRbac(found.workspace));
    return agentMetadata.listAgentMetadata(this.db, found.agent.id);
  }

  /** Keeps the agent's latest metadata results, one per key; needs `update` on its workspace. */
  async recordMetadata(found: agents.AgentWithOwners, results: readonly Omit<agentMetadata.AgentMetadataRow, 'agent_id'>[]): Promise<void> {
    this.require('update', workspaceRbac(found.workspace));
    await agentMetadata.upsertAgentMetadata(
      this.db,
      results.map((result) => ({ ...result, agent_id: found.agent.id })),
    );
  }

  /** Records what the agent says one of its apps is doing; needs `update` on its workspace. */
  async insertAppStatus(found: agents.AgentWithOwners, status: Omit<appStatuses.AppStatusRow, 'agent_id' | 'workspace_id'>): Promise<void> {
    this.require('update', workspaceRbac(found.workspace));
    await appStatuses.insertAppStatus(this.db, { ...status, agent_id: found.agent.id, workspace_id: found.workspace.id });
  }

  /**
   * The newest agent on a cloud instance, with the type of the job that made it and, for a
   * workspace build's agent, what it belongs to; undefined when none has that instance id. Needs
   * `read` on the agent's workspace, or on the organization's jobs for an agent of another job.
   */
  async findByInstanceId(instanceId: string): Promise<agents.InstanceAgent | undefined> {
    const found = await agents.getNewestAgentByInstanceId(this.db, instanceId);
    if (!found) return undefined;
    this.require('read', found.owners ? workspaceRbac(found.owners.workspace) : orgScoped('provisioner_jobs', found.organizationId));
    return found;
  }

  /** Replaces the hash of the agent's token, so the token issued last is the one that works; needs `update`. */
  async replaceToken(found: agents.AgentWithOwners, tokenHash: string): Promise<void> {
    this.require('update', workspaceRbac(found.workspace));
    await this.store.changingAgentAuths({ workspaceId: found.workspace.id }, () =>
      agents.updateAgent(this.db, found.agent.id, { auth_token_hash: tokenHash }),
    );
  }

  /** The agents of a readable workspace's newest build, by name. */
  async listOfLatestBuild(workspace: workspaces.WorkspaceRow): Promise<agents.AgentRow[]> {
    this.require('read', workspaceRbac(workspace));
    return agents.listAgentsOfLatestBuild(this.db, workspace.id);
  }

  /** `owner/workspace.agent` names of these agents, for those in workspaces the subject may read (filtered in SQL). */
  async labels(agentIds: readonly string[]): Promise<agents.AgentLabel[]> {
    return agents.listAgentLabels(this.db, agentIds, listFilter(this.subject, 'read', 'workspace'));
  }
}
