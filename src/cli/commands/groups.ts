import type { CommandSpec } from '../command.js';
import { groupsSyncCommand } from './groups-sync-preview.js';

/** `cove groups`: the groups of an organization, and their sync from the OIDC provider. */
export const groupsCommand: CommandSpec = {
  name: 'groups',
  aliases: ['group'],
  summary: 'Manage groups and inspect their sync from the OIDC provider',
  subcommands: [groupsSyncCommand],
};
