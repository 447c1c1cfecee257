import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Where git keeps its CGI program on Debian and most Linux distributions. */
export const GIT_HTTP_BACKEND = '/usr/lib/git-core/git-http-backend';

/** A real git server: git's own smart HTTP backend behind Basic authentication. */
export interface GitHttpServer {
  /** `http://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** The clone URL of the one repository, `http://127.0.0.1:<port>/repo.git`. */
  readonly repoUrl: string;
  /** The bare repository on disk. */
  readonly bareDir: string;
  /** The subjects of the commits on `main` in the bare repository, newest first. */
  commitSubjects(): string[];
  /** How many requests were refused for want of acceptable credentials. */
  refusals(): number;
  close(): Promise<void>;
}

/** Git that reads no user or system configuration, so a developer's settings change nothing. */
function git(args: readonly string[], cwd: string): string {
  return execFileSync('git', [...args], {
    cwd,
    encoding: 'utf8',
    env: {
      PATH: process.env['PATH'] ?? '/usr/bin:/bin',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Seed',
      GIT_AUTHOR_EMAIL: 'seed@example.com',
      GIT_COMMITTER_NAME: 'Seed',
      GIT_COMMITTER_EMAIL: 'seed@example.com',
    },
  });
}

/**
 * Starts the server with a bare repository `repo.git` holding one commit ("seed", a README) on
 * `main`, push allowed. Every request must carry Basic credentials that `accept` takes (it gets
 * the username and the password); otherwise the answer is 401 with `WWW-Authenticate: Basic`,
 * which makes git ask its GIT_ASKPASS program.
 */
export async function startGitHttpServer(accept: (username: string, password: string) => Promise<boolean>): Promise<GitHttpServer> {
  const root = mkdtempSync(join(tmpdir(), 'cove-git-server-'));
  const projects = join(root, 'projects');
  const seed = join(root, 'seed');
  mkdirSync(projects);
  mkdirSync(seed);
  git(['init', '-q', '-b', 'main'], seed);
  writeFileSync(join(seed, 'README.md'), '# repo\n');
  git(['add', 'README.md'], seed);
  git(['commit', '-q', '-m', 'seed'], seed);
  const bareDir = join(projects, 'repo.git');
  git(['clone', '-q', '--bare', seed, bareDir], root);
  git(['config', 'http.receivepack', 'true'], bareDir);
  let refused = 0;

  const server = createServer((req, res) => {
    void answer(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(error));
    });
  });

  async function answer(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const credentials = basicCredentials(req.headers.authorization);
    if (credentials === undefined || !(await accept(credentials.username, credentials.password))) {
      refused++;
      req.resume();
      res.writeHead(401, { 'www-authenticate': 'Basic realm="git"', 'content-type': 'text/plain' }).end('authentication required\n');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://git.invalid');
    const backend = spawn(GIT_HTTP_BACKEND, [], {
      env: {
        PATH: process.env['PATH'] ?? '/usr/bin:/bin',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        GIT_PROJECT_ROOT: projects,
        GIT_HTTP_EXPORT_ALL: '1',
        GATEWAY_INTERFACE: 'CGI/1.1',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        // Absent for a chunked body, which the backend then reads to its end.
        ...(req.headers['content-length'] ? { CONTENT_LENGTH: req.headers['content-length'] } : {}),
        REMOTE_USER: credentials.username,
        REMOTE_ADDR: req.socket.remoteAddress ?? '127.0.0.1',
        // git gzips large request bodies and speaks protocol v2 when told the header.
        HTTP_CONTENT_ENCODING: req.headers['content-encoding'] ?? '',
        GIT_PROTOCOL: String(req.headers['git-protocol'] ?? ''),
      },
      stdio: ['pipe', 'pipe', 'ignore'],
    });
    req.pipe(backend.stdin);
    await relayCgiOutput(backend.stdout, res);
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    port,
    repoUrl: `${url}/repo.git`,
    bareDir,
    commitSubjects: () => git(['log', '--format=%s', 'main'], bareDir).trim().split('\n'),
    refusals: () => refused,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** The username and password of a Basic Authorization header. */
function basicCredentials(header: string | undefined): { username: string; password: string } | undefined {
  const match = /^Basic\s+(\S+)$/i.exec(header ?? '');
  if (!match?.[1]) return undefined;
  const decoded = Buffer.from(match[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? { username: decoded, password: '' } : { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/** Turns a CGI program's output (headers, a blank line, the body) into the HTTP response. */
function relayCgiOutput(output: NodeJS.ReadableStream, res: ServerResponse): Promise<void> {
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    let headersDone = false;
    output.on('data', (chunk: Buffer) => {
      if (headersDone) {
        res.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const crlf = head.indexOf('\r\n\r\n');
      const lf = head.indexOf('\n\n');
      const end = crlf >= 0 && (lf < 0 || crlf < lf) ? crlf : lf;
      if (end < 0) return;
      const separator = end === crlf ? 4 : 2;
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.subarray(0, end).toString('latin1').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon < 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
        else headers[name] = value;
      }
      headersDone = true;
      res.writeHead(status, headers);
      res.write(head.subarray(end + separator));
    });
    output.on('end', () => {
      if (!headersDone) res.writeHead(502).end('the git backend wrote no headers\n');
      else res.end();
      resolve();
    });
    output.on('error', reject);
  });
}
