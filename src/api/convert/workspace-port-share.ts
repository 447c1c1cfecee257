import { SHARE_LEVELS, type ShareLevel } from '../../domain/port-sharing.js';

/** A shared port as stored: the level is text in the table. */
interface PortShareRow {
  readonly workspace_id: string;
  readonly agent_name: string;
  readonly port: number;
  readonly share_level: string;
  readonly protocol: string;
}

/** A port share as the API shows it; a level the rules no longer know shares with nobody but the owner. */
export function toWirePortShare(row: PortShareRow): PortShareRow & { readonly share_level: ShareLevel } {
  return { ...row, share_level: SHARE_LEVELS.find((level) => level === row.share_level) ?? 'owner' };
}
