import { constants as fsConstants, type Stats } from 'node:fs';
import {
  chmod,
  chown,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  realpath,
  rename,
  rmdir,
  stat,
  symlink,
  truncate,
  unlink,
  utimes,
  type FileHandle,
} from 'node:fs/promises';
import { join, resolve } from 'node:path';
import ssh2 from 'ssh2';
import type { Attributes, FileEntry, SFTPWrapper } from 'ssh2';
import type { AgentLogger } from '../agent-logger.js';

const { OPEN_MODE, STATUS_CODE } = ssh2.utils.sftp;

/** Where the SFTP subsystem works. */
export interface SftpHandlerOptions {
  /** Relative paths resolve from here, as sftp-server resolves them from the login directory. */
  readonly directory: string;
  readonly logger: AgentLogger;
}

/**
 * Largest DATA reply. OpenSSH's client accepts packets up to 256 KiB and asks for 32 KiB at a time;
 * capping keeps a client's huge READ from allocating huge buffers here.
 */
const MAX_READ = 64 * 1024;

/** Entries per READDIR reply, as sftp-server sends, so a large directory never overflows a packet. */
const READDIR_BATCH = 100;

type OpenHandle =
  | { readonly kind: 'file'; readonly file: FileHandle; readonly path: string }
  | { readonly kind: 'dir'; readonly path: string; pending: string[] };

/** An error that already knows its SFTP status. */
class SftpStatusError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Serves SFTP version 3 on a subsystem channel over the local file system, with the agent's own
 * permissions: a user who may SSH in may already do all of this from a shell. Each request runs on its
 * own and answers by request id, so a slow read does not hold up a listing.
 */
export function serveSftp(sftp: SFTPWrapper, options: SftpHandlerOptions): void {
  const { directory, logger } = options;
  const handles = new Map<number, OpenHandle>();
  let nextHandle = 1;
  let closed = false;

  const path = (requested: string): string => resolve(directory, requested || '.');
  const send = (reply: () => void): void => {
    if (closed) return;
    try {
      reply();
    } catch (err) {
      logger.warn({ err: errorMessage(err) }, 'sftp reply failed');
    }
  };
  const ok = (reqId: number): void => send(() => sftp.status(reqId, STATUS_CODE.OK));
  const serve = (reqId: number, work: () => Promise<void>): void => {
    work().catch((err: unknown) => send(() => sftp.status(reqId, statusOf(err), errorMessage(err))));
  };
  const lookup = (handle: Buffer): OpenHandle => {
    const entry = handle.length === 4 ? handles.get(handle.readUInt32BE(0)) : undefined;
    if (!entry) throw new SftpStatusError(STATUS_CODE.FAILURE, 'invalid handle');
    return entry;
  };
  const fileOf = (handle: Buffer): FileHandle => {
    const entry = lookup(handle);
    if (entry.kind !== 'file') throw new SftpStatusError(STATUS_CODE.FAILURE, 'not a file handle');
    return entry.file;
  };
  const register = (entry: OpenHandle): Buffer => {
    const id = nextHandle++;
    handles.set(id, entry);
    const buffer = Buffer.alloc(4);
    buffer.writeUInt32BE(id >>> 0, 0);
    return buffer;
  };

  sftp.on('error', (err: Error) => logger.warn({ err: err.message }, 'sftp session error'));
  const shutdown = (): void => {
    if (closed) return;
    closed = true;
    for (const entry of handles.values()) {
      if (entry.kind === 'file') entry.file.close().catch(() => undefined);
    }
    handles.clear();
  };
  // The client's EOF ends the subsystem, as sftp-server exits on it; closing our side lets the client
  // finish (OpenSSH's sftp waits for the close).
  sftp.once('end', () => {
    shutdown();
    reportSuccess(sftp);
    sftp.end();
  });
  sftp.once('close', shutdown);

  sftp.on('OPEN', (reqId, filename, flags, attrs) =>
    serve(reqId, async () => {
      const target = path(filename);
      const mode = typeof attrs?.mode === 'number' ? attrs.mode & 0o7777 : 0o666;
      const file = await open(target, openFlags(flags), mode);
      if (closed) {
        await file.close();
        return;
      }
      const handle = register({ kind: 'file', file, path: target });
      send(() => sftp.handle(reqId, handle));
    }),
  );

  sftp.on('READ', (reqId, handle, offset, length) =>
    serve(reqId, async () => {
      const file = fileOf(handle);
      const buffer = Buffer.allocUnsafe(Math.min(length, MAX_READ));
      const { bytesRead } = await file.read(buffer, 0, buffer.length, offset);
      if (bytesRead === 0) send(() => sftp.status(reqId, STATUS_CODE.EOF));
      else send(() => sftp.data(reqId, buffer.subarray(0, bytesRead)));
    }),
  );

  sftp.on('WRITE', (reqId, handle, offset, data) =>
    serve(reqId, async () => {
      const file = fileOf(handle);
      let written = 0;
      while (written < data.length) {
        const result = await file.write(data, written, data.length - written, offset + written);
        written += result.bytesWritten;
      }
      ok(reqId);
    }),
  );

  sftp.on('CLOSE', (reqId, handle) =>
    serve(reqId, async () => {
      const entry = lookup(handle);
      handles.delete(handle.readUInt32BE(0));
      if (entry.kind === 'file') await entry.file.close();
      ok(reqId);
    }),
  );

  sftp.on('FSTAT', (reqId, handle) =>
    serve(reqId, async () => {
      const entry = lookup(handle);
      const stats = entry.kind === 'file' ? await entry.file.stat() : await stat(entry.path);
      send(() => sftp.attrs(reqId, toAttributes(stats)));
    }),
  );

  sftp.on('FSETSTAT', (reqId, handle, attrs) =>
    serve(reqId, async () => {
      const entry = lookup(handle);
      if (entry.kind === 'file') {
        const file = entry.file;
        await applyAttributes(attrs, {
          truncate: (size) => file.truncate(size),
          chown: (uid, gid) => file.chown(uid, gid),
          chmod: (mode) => file.chmod(mode),
          utimes: (atime, mtime) => file.utimes(atime, mtime),
        });
      } else {
        await applyAttributes(attrs, pathAttributeOps(entry.path));
      }
      ok(reqId);
    }),
  );

  sftp.on('SETSTAT', (reqId, requested, attrs) =>
    serve(reqId, async () => {
      await applyAttributes(attrs, pathAttributeOps(path(requested)));
      ok(reqId);
    }),
  );

  sftp.on('STAT', (reqId, requested) =>
    serve(reqId, async () => {
      const stats = await stat(path(requested));
      send(() => sftp.attrs(reqId, toAttributes(stats)));
    }),
  );

  sftp.on('LSTAT', (reqId, requested) =>
    serve(reqId, async () => {
      const stats = await lstat(path(requested));
      send(() => sftp.attrs(reqId, toAttributes(stats)));
    }),
  );

  sftp.on('OPENDIR', (reqId, requested) =>
    serve(reqId, async () => {
      const target = path(requested);
      const names = await readdir(target);
      // sftp-server lists `.` and `..` as readdir(3) does; clients that do not want them drop them.
      const handle = register({ kind: 'dir', path: target, pending: ['.', '..', ...names] });
      send(() => sftp.handle(reqId, handle));
    }),
  );

  sftp.on('READDIR', (reqId, handle) =>
    serve(reqId, async () => {
      const entry = lookup(handle);
      if (entry.kind !== 'dir') throw new SftpStatusError(STATUS_CODE.FAILURE, 'not a directory handle');
      const entries: FileEntry[] = [];
      while (entries.length < READDIR_BATCH && entry.pending.length > 0) {
        const name = entry.pending.shift() as string;
        try {
          const stats = await lstat(join(entry.path, name));
          entries.push({ filename: name, longname: longName(name, stats), attrs: toAttributes(stats) });
        } catch {
          // Removed since OPENDIR: a listing shows what exists now.
        }
      }
      if (entries.length === 0) send(() => sftp.status(reqId, STATUS_CODE.EOF));
      else send(() => sftp.name(reqId, entries));
    }),
  );

  sftp.on('REALPATH', (reqId, requested) =>
    serve(reqId, async () => {
      const target = path(requested);
      // A path that does not exist yet (an upload's target) still has a canonical form.
      const canonical = await realpath(target).catch(() => target);
      send(() => sftp.name(reqId, [{ filename: canonical, longname: canonical, attrs: {} as Attributes }]));
    }),
  );

  sftp.on('READLINK', (reqId, requested) =>
    serve(reqId, async () => {
      const target = await readlink(path(requested));
      send(() => sftp.name(reqId, [{ filename: target, longname: target, attrs: {} as Attributes }]));
    }),
  );

  // ssh2 already undoes OpenSSH's swapped arguments: this is always (link, target), whatever the
  // typings call them. The target is stored as given, since a relative link is relative to its folder.
  sftp.on('SYMLINK', (reqId: number, linkPath: string, targetPath: string) =>
    serve(reqId, async () => {
      await symlink(targetPath, path(linkPath));
      ok(reqId);
    }),
  );

  sftp.on('MKDIR', (reqId, requested, attrs) =>
    serve(reqId, async () => {
      await mkdir(path(requested), typeof attrs?.mode === 'number' ? attrs.mode & 0o7777 : 0o777);
      ok(reqId);
    }),
  );

  sftp.on('RMDIR', (reqId, requested) =>
    serve(reqId, async () => {
      await rmdir(path(requested));
      ok(reqId);
    }),
  );

  sftp.on('REMOVE', (reqId, requested) =>
    serve(reqId, async () => {
      await unlink(path(requested));
      ok(reqId);
    }),
  );

  sftp.on('RENAME', (reqId, oldPath, newPath) =>
    serve(reqId, async () => {
      const from = path(oldPath);
      const to = path(newPath);
      // SFTP v3 RENAME must not replace an existing file (clients use it to avoid clobbering).
      const exists = await lstat(to).then(
        () => true,
        () => false,
      );
      if (exists) throw new SftpStatusError(STATUS_CODE.FAILURE, `${newPath} already exists`);
      await rename(from, to);
      ok(reqId);
    }),
  );
}

/** SFTP open flags (pflags) to `open(2)` flags. */
function openFlags(flags: number): number {
  const read = (flags & OPEN_MODE.READ) !== 0;
  const write = (flags & OPEN_MODE.WRITE) !== 0;
  let result = read && write ? fsConstants.O_RDWR : write ? fsConstants.O_WRONLY : fsConstants.O_RDONLY;
  if (flags & OPEN_MODE.APPEND) result |= fsConstants.O_APPEND;
  if (flags & OPEN_MODE.CREAT) result |= fsConstants.O_CREAT;
  if (flags & OPEN_MODE.TRUNC) result |= fsConstants.O_TRUNC;
  if (flags & OPEN_MODE.EXCL) result |= fsConstants.O_EXCL;
  return result;
}

interface AttributeOps {
  truncate(size: number): Promise<void>;
  chown(uid: number, gid: number): Promise<void>;
  chmod(mode: number): Promise<void>;
  utimes(atime: number, mtime: number): Promise<void>;
}

function pathAttributeOps(target: string): AttributeOps {
  return {
    truncate: (size) => truncate(target, size),
    chown: (uid, gid) => chown(target, uid, gid),
    chmod: (mode) => chmod(target, mode),
    utimes: (atime, mtime) => utimes(target, atime, mtime),
  };
}

/** Applies the attributes a SETSTAT carries; ssh2 leaves the absent ones undefined. */
async function applyAttributes(attrs: Partial<Attributes> | undefined, ops: AttributeOps): Promise<void> {
  if (!attrs) return;
  if (typeof attrs.size === 'number') await ops.truncate(attrs.size);
  if (typeof attrs.uid === 'number' && typeof attrs.gid === 'number') await ops.chown(attrs.uid, attrs.gid);
  if (typeof attrs.mode === 'number') await ops.chmod(attrs.mode & 0o7777);
  if (typeof attrs.atime === 'number' && typeof attrs.mtime === 'number') await ops.utimes(attrs.atime, attrs.mtime);
}

function toAttributes(stats: Stats): Attributes {
  return {
    mode: stats.mode,
    uid: stats.uid,
    gid: stats.gid,
    size: stats.size,
    atime: Math.floor(stats.atimeMs / 1000),
    mtime: Math.floor(stats.mtimeMs / 1000),
  };
}

/** The `ls -l` line that clients such as OpenSSH's `sftp` print for `ls -l`. */
function longName(name: string, stats: Stats): string {
  const date = new Date(stats.mtimeMs);
  const month = date.toLocaleString('en-US', { month: 'short' });
  const day = String(date.getDate()).padStart(2);
  const sixMonths = 182 * 24 * 3600 * 1000;
  const recent = Math.abs(Date.now() - stats.mtimeMs) < sixMonths;
  const when = recent
    ? `${String(date.getHours()).padStart(2, '0')}:${String(date.getMinutes()).padStart(2, '0')}`
    : ` ${date.getFullYear()}`;
  return `${modeString(stats)} ${String(stats.nlink).padStart(3)} ${String(stats.uid).padEnd(8)} ${String(stats.gid).padEnd(8)} ${String(stats.size).padStart(8)} ${month} ${day} ${when} ${name}`;
}

function modeString(stats: Stats): string {
  const type = stats.isDirectory()
    ? 'd'
    : stats.isSymbolicLink()
      ? 'l'
      : stats.isCharacterDevice()
        ? 'c'
        : stats.isBlockDevice()
          ? 'b'
          : stats.isFIFO()
            ? 'p'
            : stats.isSocket()
              ? 's'
              : '-';
  const mode = stats.mode;
  const triple = (shift: number, special: number, specialChar: string): string => {
    const bits = (mode >> shift) & 7;
    const exec = (bits & 1) !== 0;
    const execChar = mode & special ? (exec ? specialChar : specialChar.toUpperCase()) : exec ? 'x' : '-';
    return `${bits & 4 ? 'r' : '-'}${bits & 2 ? 'w' : '-'}${execChar}`;
  };
  return `${type}${triple(6, 0o4000, 's')}${triple(3, 0o2000, 's')}${triple(0, 0o1000, 't')}`;
}

/** errno to SFTP v3 status, as OpenSSH's sftp-server maps them. */
function statusOf(err: unknown): number {
  if (err instanceof SftpStatusError) return err.status;
  switch ((err as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOENT':
    case 'ENOTDIR':
    case 'EBADF':
    case 'ELOOP':
      return STATUS_CODE.NO_SUCH_FILE;
    case 'EPERM':
    case 'EACCES':
    case 'EFAULT':
      return STATUS_CODE.PERMISSION_DENIED;
    case 'ENAMETOOLONG':
    case 'EINVAL':
      return STATUS_CODE.BAD_MESSAGE;
    case 'ENOSYS':
      return STATUS_CODE.OP_UNSUPPORTED;
    default:
      return STATUS_CODE.FAILURE;
  }
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The parts of ssh2's SFTP stream that reach its channel; ssh2 offers no public way to do this. */
interface SftpChannel {
  readonly _protocol?: { exitStatus(channel: number, status: number): void; channelEOF(channel: number): void };
  readonly outgoing?: { readonly id: number; readonly state: string };
}

/**
 * Ends the subsystem as sftp-server exiting 0 would: exit-status 0, then EOF. scp (which speaks
 * SFTP since OpenSSH 9) fails a transfer whose channel closes without an exit status.
 */
function reportSuccess(sftp: SFTPWrapper): void {
  const { _protocol: protocol, outgoing } = sftp as unknown as SftpChannel;
  if (!protocol || outgoing?.state !== 'open') return;
  protocol.exitStatus(outgoing.id, 0);
  protocol.channelEOF(outgoing.id);
}
