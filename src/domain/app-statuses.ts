import { HttpProblem } from '../lib/errors.js';
import { newId } from '../lib/random.js';
import type { PatchAppStatusRequest, WorkspaceAppStatus } from '../sdk/wire/index.js';
import type { Clock } from '../lib/clock.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { PubSub } from '../store/pubsub.js';
import type { AgentWithOwners, AppStatusRow } from '../store/rows.js';
import { manifestApps, readDefinition } from './agent-definition.js';
import { workspaceEventsChannel } from './workspace-events.js';

/** The reference refuses longer messages (§6.4); statuses are one-line summaries for the UI. */
export const APP_STATUS_MESSAGE_LIMIT = 160;
const STATES: ReadonlySet<string> = new Set(['working', 'idle', 'complete', 'failure']);
// C0 and C1 control characters (newlines included) would break the one-line display.
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Records what an agent says one of its apps is doing, after the reference's checks, and tells
 * the workspace's watchers, through the agent's own store. `icon` and `needs_user_attention` are
 * deprecated and ignored.
 */
export async function recordAppStatus(
  agentStore: AuthorizedStore,
  events: { readonly pubsub: PubSub; readonly clock: Clock },
  found: AgentWithOwners,
  request: PatchAppStatusRequest,
): Promise<AppStatusRow> {
  const message = request.message ?? '';
  if ([...message].length > APP_STATUS_MESSAGE_LIMIT) {
    throw new HttpProblem(400, 'Message is too long.', { detail: `Message must be less than ${APP_STATUS_MESSAGE_LIMIT} characters.` });
  }
  if (!STATES.has(request.state)) {
    throw new HttpProblem(400, 'Invalid state provided.', { detail: `State "${request.state}" is not one of: ${[...STATES].join(', ')}.` });
  }
  const app = manifestApps(found.agent.id, readDefinition(found.agent.definition)).find((candidate) => candidate.slug === request.app_slug);
  if (!app) {
    throw new HttpProblem(400, 'Failed to get workspace app.', { detail: `The agent has no app with slug "${request.app_slug}".` });
  }
  const row: AppStatusRow = {
    id: newId(),
    workspace_id: found.workspace.id,
    agent_id: found.agent.id,
    app_id: app.id,
    state: request.state,
    message: message.replace(CONTROL_CHARACTERS, ''),
    uri: request.uri ?? '',
    created_at: events.clock.now().toISOString(),
  };
  await agentStore.workspaceAgents.insertAppStatus(found, row);
  await events.pubsub.publish(workspaceEventsChannel(found.workspace.id), 'app_status');
  return row;
}

/** A stored status as the API shows it. */
export function toWireAppStatus(row: AppStatusRow): WorkspaceAppStatus {
  return {
    id: row.id,
    created_at: row.created_at,
    workspace_id: row.workspace_id,
    agent_id: row.agent_id,
    app_id: row.app_id,
    state: row.state as WorkspaceAppStatus['state'],
    message: row.message,
    uri: row.uri,
    icon: '',
    needs_user_attention: false,
  };
}
