import type { Kysely, Selectable } from 'kysely';
import type { Database, ProvisionerDaemonTable } from '../schema.js';
import { inList } from '../in-list.js';

export type ProvisionerDaemonRow = Selectable<ProvisionerDaemonTable>;

/**
 * A daemon with the name of the key it connected with, whether it holds a running job, and its
 * running job and the last one it finished (ids, null when none).
 */
export type ProvisionerDaemonWithState = ProvisionerDaemonRow & {
  readonly key_name: string | null;
  readonly busy: number;
  readonly current_job_id: string | null;
  readonly previous_job_id: string | null;
};

/** An organization's daemons, oldest first, with their key names and whether each is busy, in one query. */
export async function listDaemonsWithState(db: Kysely<Database>, organizationId: string): Promise<ProvisionerDaemonWithState[]> {
  const rows = await db
    .selectFrom('provisioner_daemons as d')
    .leftJoin('provisioner_keys as k', 'k.id', 'd.key_id')
    .selectAll('d')
    .select('k.name as key_name')
    .select((eb) =>
      eb
        .case()
        .when(
          eb.exists(
            eb
              .selectFrom('provisioner_jobs as j')
              .select('j.id')
              .whereRef('j.worker_id', '=', 'd.id')
              .where('j.started_at', 'is not', null)
              .where('j.completed_at', 'is', null),
          ),
        )
        .then(1)
        .else(0)
        .end()
        .as('busy'),
    )
    .select((eb) =>
      eb
        .selectFrom('provisioner_jobs as j')
        .select('j.id')
        .whereRef('j.worker_id', '=', 'd.id')
        .where('j.started_at', 'is not', null)
        .where('j.completed_at', 'is', null)
        .orderBy('j.started_at', 'desc')
        .limit(1)
        .as('current_job_id'),
    )
    .select((eb) =>
      eb
        .selectFrom('provisioner_jobs as j')
        .select('j.id')
        .whereRef('j.worker_id', '=', 'd.id')
        .where('j.completed_at', 'is not', null)
        .orderBy('j.completed_at', 'desc')
        .limit(1)
        .as('previous_job_id'),
    )
    .where('d.organization_id', '=', organizationId)
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute();
  return rows.map((row) => ({
    ...row,
    busy: Number(row.busy),
    current_job_id: row.current_job_id ?? null,
    previous_job_id: row.previous_job_id ?? null,
  }));
}

/** Every provisioner daemon of these organizations, oldest first; undefined when there is nothing to look up. */
export function daemonsOfOrganizationsQuery(db: Kysely<Database>, organizationIds: readonly string[]) {
  return organizationIds.length === 0
    ? undefined
    : db.selectFrom('provisioner_daemons').selectAll().where('organization_id', 'in', inList(organizationIds)).orderBy('created_at');
}

/** Records a daemon's row when it connects, or refreshes the row of one seen before. */
export async function upsertDaemon(db: Kysely<Database>, row: ProvisionerDaemonRow): Promise<void> {
  const { id: _id, api_version: _api, created_at: _created, ...columns } = row;
  await db
    .insertInto('provisioner_daemons')
    .values(row)
    .onConflict((oc) => oc.column('id').doUpdateSet(columns))
    .execute();
}

/** Marks a daemon as seen at `now`. */
export async function touchDaemon(db: Kysely<Database>, daemonId: string, now: string): Promise<void> {
  await db.updateTable('provisioner_daemons').set({ last_seen_at: now }).where('id', '=', daemonId).execute();
}

/** The daemons of every organization seen at or after `since`, oldest first, with their key names. */
export async function listDaemonsSeenSince(
  db: Kysely<Database>,
  since: string,
): Promise<(ProvisionerDaemonRow & { readonly key_name: string | null })[]> {
  return db
    .selectFrom('provisioner_daemons as d')
    .leftJoin('provisioner_keys as k', 'k.id', 'd.key_id')
    .selectAll('d')
    .select('k.name as key_name')
    .where('d.last_seen_at', '>=', since)
    .orderBy('d.created_at')
    .orderBy('d.id')
    .execute();
}
