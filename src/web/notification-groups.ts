// The kinds of notification as the settings pages show them: by group, in alphabetical order.
import type { NotificationTemplate } from '../sdk/wire/index.js';

/** The kinds by their group, groups and kinds in alphabetical order. */
export function groupKinds(kinds: readonly NotificationTemplate[]): [string, NotificationTemplate[]][] {
  const groups = new Map<string, NotificationTemplate[]>();
  for (const kind of kinds) groups.set(kind.group, [...(groups.get(kind.group) ?? []), kind]);
  return [...groups.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([group, members]) => [group, members.sort((a, b) => a.name.localeCompare(b.name))]);
}

/** The id of a group's heading, for the section it names. */
export function groupHeadingId(group: string): string {
  return `kinds-${group.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
}
