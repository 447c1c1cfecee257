import { StoreFamily } from './store-family.js';
import { withConflicts } from '../db-errors.js';
import { fileObject } from '../../rbac/index.js';
import { NotFoundError } from '../../lib/errors.js';
import * as files from '../queries/files.js';

/** Uploaded files (template archives). */
export class FileStore extends StoreFamily {
  /**
   * Stores an upload for the subject, or returns the file they already uploaded with the same
   * bytes (`created: false`). A race between two identical uploads ends with both getting one row.
   */
  async save(row: files.FileRow): Promise<{ readonly file: files.FileInfo; readonly created: boolean }> {
    this.require('create', fileObject(row.created_by));
    const existing = await files.getFileByHash(this.db, row.hash, row.created_by);
    if (existing) return { file: existing, created: false };
    try {
      await withConflicts(() => files.insertFile(this.db, row));
    } catch (error) {
      const winner = await files.getFileByHash(this.db, row.hash, row.created_by);
      if (!winner) throw error;
      return { file: winner, created: true };
    }
    const { data: _bytes, ...info } = row;
    return { file: info, created: true };
  }

  /** A file with its bytes: its uploader may read it, and so may those who read files in general (template admins). */
  async get(id: string): Promise<files.FileRow> {
    const row = await files.getFileById(this.db, id);
    if (!row) throw new NotFoundError('file');
    this.require('read', fileObject(row.created_by, row.id));
    return row;
  }
}
