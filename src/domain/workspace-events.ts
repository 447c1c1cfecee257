/** Pubsub channel of one workspace: any change to it, its builds or its agents. Payload: what changed. */
export function workspaceEventsChannel(workspaceId: string): string {
  return `workspace:${workspaceId}`;
}
