import { createHash } from 'node:crypto';
import { ArchiveError, inspectTar, tarToZip, zipToTar } from '../lib/archive/index.js';
import { ConcurrencyLimit } from '../lib/concurrency-limit.js';
import { HttpProblem } from '../lib/errors.js';
import { newId } from '../lib/random.js';
import type { AuthorizedStore } from '../store/authorized-store.js';
import type { FileRow } from '../store/rows.js';

/** Largest upload, and largest a zip may expand to: 100 MiB, as in the reference. */
export const MAX_FILE_BYTES = 100 * 1024 * 1024;

/** The content types an upload may have. */
export const UPLOAD_TYPES: ReadonlySet<string> = new Set(['application/x-tar', 'application/zip', 'application/x-zip-compressed']);

const TAR = 'application/x-tar';

/**
 * Archive expansions (reading an upload in full, converting zip and tar) running at once in this
 * daemon: each may hold up to ten times the upload limit while it reads, so the count bounds the
 * memory that many simultaneous uploads can take. The others wait their turn.
 */
export const archiveExpansions = new ConcurrencyLimit(2);

/**
 * Stores an uploaded template archive for the caller. Zips are converted to tar first; either way
 * the archive is read in full and refused, naming the entry, if anything in it is unsafe. The same
 * bytes uploaded again by the same user give back the first file (`created: false`).
 */
export async function uploadFile(
  store: AuthorizedStore,
  contentType: string,
  body: Buffer,
  now: Date,
): Promise<{ readonly id: string; readonly created: boolean }> {
  if (!UPLOAD_TYPES.has(contentType)) throw new HttpProblem(400, `Unsupported content type header "${contentType}".`);
  const tar = await archiveExpansions.run(async () => {
    const tar = contentType === TAR ? body : await convertZip(body);
    try {
      await inspectTar(tar, { maxTotalBytes: MAX_FILE_BYTES * 10 });
    } catch (error) {
      throw archiveProblem(error);
    }
    return tar;
  });
  const row: FileRow = {
    id: newId(),
    hash: createHash('sha256').update(tar).digest('hex'),
    created_by: store.subject.id,
    created_at: now.toISOString(),
    mimetype: TAR,
    size: tar.length,
    data: tar,
  };
  const { file, created } = await store.files.save(row);
  return { id: file.id, created };
}

/** A stored file's bytes as asked for: as stored, or converted to zip (`format=zip`). */
export async function downloadFile(
  store: AuthorizedStore,
  id: string,
  format: string | undefined,
): Promise<{ readonly contentType: string; readonly data: Buffer }> {
  const file = await store.files.get(id);
  if (format === undefined || format === '') return { contentType: file.mimetype, data: file.data };
  if (format !== 'zip')
    throw new HttpProblem(400, 'Unsupported conversion format.', { validations: [{ field: 'format', detail: 'must be "zip"' }] });
  if (file.mimetype !== TAR) throw new HttpProblem(400, 'Only .tar files can be converted to .zip format');
  const zip = await archiveExpansions.run(() => tarToZip(file.data, { maxTotalBytes: MAX_FILE_BYTES * 10 }));
  return { contentType: 'application/zip', data: zip };
}

async function convertZip(body: Buffer): Promise<Buffer> {
  try {
    return await zipToTar(body, { maxTotalBytes: MAX_FILE_BYTES });
  } catch (error) {
    if (error instanceof ArchiveError && error.reason === 'too_large') {
      throw new HttpProblem(413, 'Expanded .zip archive exceeds maximum size.', { detail: error.message });
    }
    throw archiveProblem(error);
  }
}

function archiveProblem(error: unknown): unknown {
  if (!(error instanceof ArchiveError)) return error;
  if (error.reason === 'too_large') return new HttpProblem(413, 'The archive is too large.', { detail: error.message });
  // A compression bomb: refused while it expands, as soon as it crosses the ratio limit.
  if (error.reason === 'compression_ratio') return new HttpProblem(413, 'The archive expands too much.', { detail: error.message });
  return new HttpProblem(400, 'The archive cannot be used.', {
    detail: error.message,
    validations: error.entry === undefined ? [] : [{ field: 'file', detail: error.message }],
  });
}
