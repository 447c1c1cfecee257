import { readLicenseClaims } from '../../domain/licenses/verify-license.js';
import type { License } from '../../sdk/wire/index.js';

/** A stored license as the API shows it: its claims decoded, never the token itself. */
export function toWireLicense(row: {
  readonly id: number;
  readonly uuid: string;
  readonly uploaded_at: string;
  readonly jwt: string;
}): License {
  return { id: row.id, uuid: row.uuid, uploaded_at: row.uploaded_at, claims: { ...readLicenseClaims(row.jwt) } };
}
