import { sql, type Kysely, type Selectable } from 'kysely';
import type { DialectName } from '../database.js';
import type { Database, InboxNotificationTable, NotificationMessageTable } from '../schema.js';

/** A queued message as stored. */
export type NotificationMessageRow = Selectable<NotificationMessageTable>;
/** An inbox notification as stored. */
export type InboxNotificationRow = Selectable<InboxNotificationTable>;

/** Queues messages; one whose dedupe hash is already queued is left out. Returns those queued. */
export async function insertMessages(db: Kysely<Database>, rows: readonly NotificationMessageRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const inserted = await db
    .insertInto('notification_messages')
    .values([...rows])
    .onConflict((oc) => oc.column('dedupe_hash').doNothing())
    .returning('id')
    .execute();
  return inserted.length;
}

/** What one lease asks for. */
export interface LeaseRequest {
  readonly count: number;
  readonly now: string;
  readonly leasedUntil: string;
}

/**
 * Takes up to `count` due messages, oldest first, and marks them leased until `leasedUntil`,
 * counting the attempt. Due: pending, a temporary failure whose retry time has come, or leased by a
 * replica whose lease ran out (it died sending). One statement either way: on PostgreSQL the rows
 * another replica is leasing at the same moment are skipped (`FOR UPDATE SKIP LOCKED`), so no
 * message is taken twice; on SQLite a statement holds the only write lock.
 */
export async function leaseMessages(db: Kysely<Database>, dialect: DialectName, request: LeaseRequest): Promise<NotificationMessageRow[]> {
  const due = sql<boolean>`(status = 'pending'
    OR (status = 'temporary_failure' AND (next_retry_after IS NULL OR next_retry_after <= ${request.now}))
    OR (status = 'leased' AND leased_until <= ${request.now}))`;
  const lock = dialect === 'postgres' ? sql`FOR UPDATE SKIP LOCKED` : sql``;
  const result = await sql<NotificationMessageRow>`
    UPDATE notification_messages
    SET status = 'leased', leased_until = ${request.leasedUntil}, updated_at = ${request.now}, attempt_count = attempt_count + 1
    WHERE id IN (
      SELECT id FROM notification_messages WHERE ${due} ORDER BY created_at, id LIMIT ${request.count} ${lock}
    )
    RETURNING *`.execute(db);
  return result.rows;
}

/** Marks a leased message sent. */
export async function markMessageSent(db: Kysely<Database>, id: string, now: string): Promise<void> {
  await db
    .updateTable('notification_messages')
    .set({ status: 'sent', status_reason: '', leased_until: null, next_retry_after: null, updated_at: now })
    .where('id', '=', id)
    .execute();
}

/** Marks a leased message failed: to be tried again from `retryAt`, or (null) for good. */
export async function markMessageFailed(
  db: Kysely<Database>,
  id: string,
  failure: { readonly reason: string; readonly retryAt: string | null; readonly now: string },
): Promise<void> {
  await db
    .updateTable('notification_messages')
    .set({
      status: failure.retryAt === null ? 'permanent_failure' : 'temporary_failure',
      status_reason: failure.reason,
      leased_until: null,
      next_retry_after: failure.retryAt,
      updated_at: failure.now,
    })
    .where('id', '=', id)
    .execute();
}

/** The newest messages of the queue, of one status when given. */
export async function listMessages(
  db: Kysely<Database>,
  filter: { readonly status?: string; readonly limit: number },
): Promise<(NotificationMessageRow & { readonly username: string | null })[]> {
  let query = db
    .selectFrom('notification_messages')
    .leftJoin('users', 'users.id', 'notification_messages.user_id')
    .selectAll('notification_messages')
    .select('users.username');
  if (filter.status) query = query.where('notification_messages.status', '=', filter.status);
  return query
    .orderBy('notification_messages.created_at', 'desc')
    .orderBy('notification_messages.id', 'desc')
    .limit(filter.limit)
    .execute();
}

/** The template ids a user turned off or on, with when. */
export async function listPreferences(
  db: Kysely<Database>,
  userId: string,
): Promise<{ readonly template_id: string; readonly disabled: number; readonly updated_at: string }[]> {
  return db
    .selectFrom('notification_preferences')
    .select(['template_id', 'disabled', 'updated_at'])
    .where('user_id', '=', userId)
    .orderBy('template_id')
    .execute();
}

/** Sets the user's choice for each template id of `disabled`. */
export async function upsertPreferences(
  db: Kysely<Database>,
  userId: string,
  disabled: ReadonlyMap<string, boolean>,
  now: string,
): Promise<void> {
  if (disabled.size === 0) return;
  await db
    .insertInto('notification_preferences')
    .values(
      [...disabled].map(([templateId, off]) => ({
        user_id: userId,
        template_id: templateId,
        disabled: off ? 1 : 0,
        created_at: now,
        updated_at: now,
      })),
    )
    .onConflict((oc) =>
      oc
        .columns(['user_id', 'template_id'])
        .doUpdateSet((eb) => ({ disabled: eb.ref('excluded.disabled'), updated_at: eb.ref('excluded.updated_at') })),
    )
    .execute();
}

/** The method chosen for each template that has one. */
export async function listTemplateMethods(db: Kysely<Database>): Promise<{ readonly template_id: string; readonly method: string }[]> {
  return db.selectFrom('notification_template_methods').selectAll().execute();
}

/** Chooses a template's method; empty goes back to the deployment's default. */
export async function setTemplateMethod(db: Kysely<Database>, templateId: string, method: string): Promise<void> {
  if (method === '') {
    await db.deleteFrom('notification_template_methods').where('template_id', '=', templateId).execute();
    return;
  }
  await db
    .insertInto('notification_template_methods')
    .values({ template_id: templateId, method })
    .onConflict((oc) => oc.column('template_id').doUpdateSet({ method }))
    .execute();
}

/** Puts a notification in a user's inbox; false when one of that id is there already. */
export async function insertInboxNotification(db: Kysely<Database>, row: InboxNotificationRow): Promise<boolean> {
  const inserted = await db
    .insertInto('inbox_notifications')
    .values(row)
    .onConflict((oc) => oc.column('id').doNothing())
    .returning('id')
    .execute();
  return inserted.length > 0;
}

/** One inbox notification. */
export async function getInboxNotification(db: Kysely<Database>, id: string): Promise<InboxNotificationRow | undefined> {
  return db.selectFrom('inbox_notifications').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Which of a user's inbox notifications a list shows. */
export interface InboxFilter {
  readonly userId: string;
  /** Only those about any of these ids. */
  readonly targets: readonly string[];
  readonly templates: readonly string[];
  readonly readStatus: 'read' | 'unread' | 'all';
  /** Only those older than this one. */
  readonly startingBefore?: InboxNotificationRow;
  readonly limit: number;
}

/** A user's inbox notifications, newest first. */
export async function listInboxNotifications(db: Kysely<Database>, filter: InboxFilter): Promise<InboxNotificationRow[]> {
  let query = db.selectFrom('inbox_notifications').selectAll().where('user_id', '=', filter.userId);
  if (filter.templates.length > 0) query = query.where('template_id', 'in', [...filter.templates]);
  if (filter.readStatus === 'read') query = query.where('read_at', 'is not', null);
  if (filter.readStatus === 'unread') query = query.where('read_at', 'is', null);
  const before = filter.startingBefore;
  if (before) {
    query = query.where((eb) =>
      eb.or([eb('created_at', '<', before.created_at), eb.and([eb('created_at', '=', before.created_at), eb('id', '<', before.id)])]),
    );
  }
  // Targets are a JSON array of ids: a notification matches when it names every id asked for.
  for (const target of filter.targets) query = query.where('targets', 'like', `%"${target.replace(/["%_\\]/g, '')}"%`);
  return query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(filter.limit).execute();
}

/** How many of a user's inbox notifications are unread. */
export async function countUnreadInbox(db: Kysely<Database>, userId: string): Promise<number> {
  const row = await db
    .selectFrom('inbox_notifications')
    .select((eb) => eb.fn.countAll<string | number>().as('count'))
    .where('user_id', '=', userId)
    .where('read_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.count ?? 0);
}

/** Marks one inbox notification read (at `readAt`) or unread (null). */
export async function setInboxReadAt(db: Kysely<Database>, id: string, readAt: string | null): Promise<void> {
  await db.updateTable('inbox_notifications').set({ read_at: readAt }).where('id', '=', id).execute();
}

/** Marks every unread inbox notification of a user read. */
export async function markAllInboxRead(db: Kysely<Database>, userId: string, readAt: string): Promise<void> {
  await db.updateTable('inbox_notifications').set({ read_at: readAt }).where('user_id', '=', userId).where('read_at', 'is', null).execute();
}
