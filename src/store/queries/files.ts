import type { Kysely, Selectable } from 'kysely';
import type { Database, FileTable } from '../schema.js';

export type FileRow = Selectable<FileTable>;

/** A file's row without its bytes, for answers that do not send them. */
export type FileInfo = Omit<FileRow, 'data'>;

/** One file by id, with its bytes. */
export async function getFileById(db: Kysely<Database>, id: string): Promise<FileRow | undefined> {
  return db.selectFrom('files').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The file a user already uploaded with these bytes, if any. */
export async function getFileByHash(db: Kysely<Database>, hash: string, createdBy: string): Promise<FileInfo | undefined> {
  return db
    .selectFrom('files')
    .select(['id', 'hash', 'created_by', 'created_at', 'mimetype', 'size'])
    .where('hash', '=', hash)
    .where('created_by', '=', createdBy)
    .executeTakeFirst();
}

/** Inserts a file row as given. */
export async function insertFile(db: Kysely<Database>, row: FileRow): Promise<void> {
  await db.insertInto('files').values(row).execute();
}
