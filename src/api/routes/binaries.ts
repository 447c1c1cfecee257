import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { HttpProblem } from '../../lib/errors.js';
import { singleExecutablePath } from '../../lib/single-executable.js';
import type { ApiContext } from '../context.js';

/**
 * The download names (Go's architecture names, as the reference system uses them) and the file
 * `npm run package` writes for each (Node's names).
 */
const RELEASE_FILES: Readonly<Record<string, { readonly file: string; readonly arch: string }>> = {
  'cove-linux-amd64': { file: 'cove-linux-x64', arch: 'x64' },
  'cove-linux-arm64': { file: 'cove-linux-arm64', arch: 'arm64' },
};

const BinaryParams = Type.Object({ file: Type.String() });

/**
 * `GET /bin/cove-linux-amd64` (and arm64): the single executable, which is also the agent, for
 * templates that start an agent on another machine (`curl -fsSL $ACCESS_URL/bin/cove-linux-amd64`).
 * Unauthenticated, as the reference serves its binaries: the file is the public release, and an
 * agent's host has no session to show. Served from the release directory; a daemon that runs from
 * the single executable serves itself for its own architecture when that directory has no file.
 */
export async function binaryRoutes(app: FastifyInstance, context: ApiContext): Promise<void> {
  const api = app.withTypeProvider<TypeBoxTypeProvider>();
  api.get('/bin/:file', { schema: { params: BinaryParams, hide: true } }, async (request, reply) => {
    if (request.params.file === CHECKSUMS) return reply.type('text/plain; charset=utf-8').send(await checksums(context.values.releaseDir));
    const release = RELEASE_FILES[request.params.file];
    if (release === undefined) throw notFound(`${request.params.file} is not a file this daemon serves`);
    const path = await releaseFile(context.values.releaseDir, release);
    if (path === undefined) throw notFound(`${release.file} is not in the release directory ${context.values.releaseDir}`);
    const { size, mtime } = await stat(path);
    return reply
      .type('application/octet-stream')
      .headers({
        'content-length': String(size),
        'content-disposition': `attachment; filename="${request.params.file}"`,
        'last-modified': mtime.toUTCString(),
      })
      .send(createReadStream(path));
  });
}

async function releaseFile(dir: string, release: { readonly file: string; readonly arch: string }): Promise<string | undefined> {
  const candidates = [join(dir, release.file)];
  const running = singleExecutablePath();
  if (running !== undefined && release.arch === process.arch) candidates.push(running);
  for (const candidate of candidates) {
    const found = await stat(candidate).then(
      (info) => info.isFile(),
      () => false,
    );
    if (found) return candidate;
  }
  return undefined;
}

/**
 * `GET /bin/SHA256SUMS`: `sha256sum -c` lines for the files this daemon serves, by their download
 * names, so an install script can check what it downloaded. Hashes are kept while a file's size
 * and time are unchanged: the executables are large.
 */
const CHECKSUMS = 'SHA256SUMS';
const hashes = new Map<string, { readonly stamp: string; readonly sha256: Promise<string> }>();

async function checksums(dir: string): Promise<string> {
  const lines: string[] = [];
  for (const [name, release] of Object.entries(RELEASE_FILES)) {
    const path = await releaseFile(dir, release);
    if (path === undefined) continue;
    const { size, mtimeMs } = await stat(path);
    const stamp = `${size} ${mtimeMs}`;
    let known = hashes.get(path);
    if (known?.stamp !== stamp) {
      known = { stamp, sha256: fileSha256(path) };
      hashes.set(path, known);
      known.sha256.catch(() => hashes.delete(path));
    }
    lines.push(`${await known.sha256}  ${name}\n`);
  }
  return lines.join('');
}

function fileSha256(path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('error', reject)
      .on('end', () => resolve(hash.digest('hex')));
  });
}

function notFound(detail: string): HttpProblem {
  return new HttpProblem(404, 'Binary not found.', { detail });
}
