import { extname } from 'node:path';
import { promisify } from 'node:util';
import { brotliCompress, constants as zlib, gzip } from 'node:zlib';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HttpProblem } from '../../lib/errors.js';
import { FRAME_ANCESTORS_NONE } from '../frame-protection.js';
import { NOT_FOUND_MESSAGE } from '../problems.js';
import { DASHBOARD_INDEX, iconFiles, locateDashboard, type StaticFiles } from './dashboard-files.js';

/** Options of the dashboard routes. */
export interface WebDashboardOptions {
  /** The dashboard's page, which the server's not-found answer shares. */
  readonly page: DashboardPage;
}

/**
 * The dashboard's one HTML page, on which the app in the browser draws whichever view the URL
 * names, with the headers every dashboard answer carries.
 */
export class DashboardPage {
  #files: StaticFiles | undefined;

  /** `directory`: a built dashboard (`index.html` and `assets/`) to serve instead of the one found beside the code; for tests. */
  constructor(private readonly directory: string | undefined) {}

  /** The build, looked up on first use (not at start), and again while missing, so that a build made later is found. */
  files(): StaticFiles | undefined {
    return (this.#files ??= locateDashboard(this.directory));
  }

  /** Answers with the page: 200 on a dashboard path, 404 where nothing lives (the app shows its not-found view). */
  async send(reply: FastifyReply, status = 200): Promise<FastifyReply> {
    void reply.headers(DASHBOARD_HEADERS);
    const page = await this.files()?.read(DASHBOARD_INDEX);
    if (page === undefined) return notBuilt(reply);
    return reply.code(status).type('text/html; charset=utf-8').header('cache-control', 'no-cache').send(page);
  }
}

/**
 * Whether an unknown address was asked for by a person in a browser (a page load), who should get
 * the dashboard's not-found page with a way back rather than the API's JSON.
 */
export function isPageLoad(request: FastifyRequest): boolean {
  if (request.method !== 'GET' && request.method !== 'HEAD') return false;
  if (request.url.startsWith('/api/')) return false;
  return (request.headers.accept ?? '').includes('text/html');
}

/**
 * Scripts, styles, fonts and connections of the dashboard come from the deployment alone. Images may
 * also come over HTTPS from elsewhere: the logo and icons an owner configures often live on another
 * host, and an image runs nothing.
 */
export const DASHBOARD_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; font-src 'self'; " +
  `connect-src 'self' ws: wss:; ${FRAME_ANCESTORS_NONE}; base-uri 'self'; form-action 'self'; object-src 'none'`;
/** Every dashboard answer's: the policy forbids framing (frame-ancestors); X-Frame-Options says so to browsers that predate it. */
const DASHBOARD_HEADERS = {
  'content-security-policy': DASHBOARD_CSP,
  'referrer-policy': 'same-origin',
  'x-frame-options': 'DENY',
} as const;
/** An icon is an image: it runs nothing and loads nothing, and may style itself. */
export const ICON_CSP = "default-src 'none'; style-src 'unsafe-inline'";

/**
 * The paths that answer the dashboard's page, on which the app in the browser shows its view.
 * `/@owner/workspace[.agent]/...` is a page unless it is an app URL, which the app proxy claims
 * before routing (src/api/apps/app-proxy.ts).
 */
export const DASHBOARD_PAGES = [
  '/',
  '/login',
  '/setup',
  '/workspaces',
  '/workspaces/*',
  '/templates',
  '/templates/*',
  '/deployment',
  '/deployment/*',
  '/groups',
  '/groups/*',
  '/@*',
  '/external-auth/*',
  '/settings/*',
  '/audit',
  '/connectionlog',
  '/organizations',
  '/organizations/*',
] as const;

/** Content types of what a dashboard build holds; anything else is served as bytes. */
const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.ttf': 'font/ttf',
  '.wasm': 'application/wasm',
};

/** A file or directory name in an asset path: no `.`/`..`, no hidden files, no separators. */
const PATH_SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9_.-]*$/;
const ICON_FILE = /^([a-z0-9][a-z0-9-]*)\.svg$/;

/** Hashed file names never change content, so browsers keep them for good. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
/** Icons keep their names across releases; a week lets a changed one show up. */
const ICON_CACHE = 'public, max-age=604800';

/**
 * The web dashboard: its page on every dashboard path, its hashed assets under `/assets/`, and the
 * app icons under `/icon/`. Where the build is found: src/api/dashboard/dashboard-files.ts.
 */
export async function webDashboardRoutes(app: FastifyInstance, options: WebDashboardOptions): Promise<void> {
  const built = (): StaticFiles | undefined => options.page.files();
  const icons = iconFiles();

  await app.register(async (pages) => {
    // Set before anything can fail, so that the 404 of an asset carries them too.
    pages.addHook('onRequest', (_request, reply, done) => {
      void reply.headers(DASHBOARD_HEADERS);
      done();
    });
    for (const path of DASHBOARD_PAGES) pages.get(path, { schema: { hide: true } }, async (_request, reply) => options.page.send(reply));
    const compressed = new CompressedCopies();
    pages
      .withTypeProvider<TypeBoxTypeProvider>()
      .get('/assets/*', { schema: { hide: true, params: Type.Object({ '*': Type.String() }) } }, async (request, reply) => {
        const path = request.params['*'];
        const segments = path.split('/');
        if (!segments.every((segment) => PATH_SEGMENT.test(segment))) throw noSuchFile(request.url);
        const name = `assets/${segments.join('/')}`;
        const body = await built()?.read(name);
        if (body === undefined) throw noSuchFile(request.url);
        const extension = extname(path).toLowerCase();
        const type = CONTENT_TYPES[extension] ?? 'application/octet-stream';
        void reply.type(type).header('cache-control', IMMUTABLE);
        if (!COMPRESSIBLE.has(extension)) return reply.send(body);
        void reply.header('vary', 'accept-encoding');
        const encoding = acceptedEncoding(request);
        if (encoding === undefined) return reply.send(body);
        return reply.header('content-encoding', encoding).send(await compressed.of(name, encoding, body));
      });
  });

  app
    .withTypeProvider<TypeBoxTypeProvider>()
    .get('/icon/:file', { schema: { hide: true, params: Type.Object({ file: Type.String() }) } }, async (request, reply) => {
      void reply.headers({ 'content-security-policy': ICON_CSP, 'referrer-policy': 'same-origin' });
      const { file } = request.params;
      const body = ICON_FILE.test(file) ? await icons.read(file) : undefined;
      if (body === undefined) throw noSuchFile(request.url);
      return reply.type('image/svg+xml').header('cache-control', ICON_CACHE).send(body);
    });
  // Browsers ask for it on any page they show, the API's included; the page itself links the icon.
  app.get('/favicon.ico', { schema: { hide: true } }, async (_request, reply) =>
    reply.code(301).header('cache-control', ICON_CACHE).redirect(FAVICON),
  );
}

/** The dashboard's tab icon, one of the icons under /icon/. */
export const FAVICON = '/icon/cove.svg';

/** Text assets, which compress to a fraction of their size; images and fonts are compressed already. */
const COMPRESSIBLE = new Set(['.js', '.mjs', '.css', '.map', '.json', '.html', '.txt', '.svg']);

type ContentEncoding = 'br' | 'gzip';

/** The best encoding the browser takes: Brotli, else gzip, else none. */
function acceptedEncoding(request: FastifyRequest): ContentEncoding | undefined {
  const accepted = request.headers['accept-encoding'] ?? '';
  const offers = new Set(
    accepted
      .split(',')
      .map((part) => part.trim().split(';'))
      .filter(([, quality]) => quality === undefined || !/^\s*q=0(\.0*)?\s*$/.test(quality))
      .map(([name]) => (name ?? '').trim().toLowerCase()),
  );
  if (offers.has('br')) return 'br';
  if (offers.has('gzip')) return 'gzip';
  return undefined;
}

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * Compressed copies of the dashboard's assets, made on first request and kept: the assets are
 * immutable and few (one build's files), so each is compressed once per encoding at the highest
 * level instead of on every answer.
 */
class CompressedCopies {
  readonly #copies = new Map<string, Promise<Buffer>>();

  of(name: string, encoding: ContentEncoding, body: Buffer): Promise<Buffer> {
    const key = `${encoding}:${name}`;
    let copy = this.#copies.get(key);
    if (copy === undefined) {
      copy =
        encoding === 'br'
          ? brotli(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: body.length } })
          : gzipped(body, { level: 9 });
      this.#copies.set(key, copy);
    }
    return copy;
  }
}

function noSuchFile(url: string): HttpProblem {
  return new HttpProblem(404, NOT_FOUND_MESSAGE, { detail: `There is no file at ${url.split('?')[0] ?? url}.` });
}

/** What a browser gets where the dashboard would be when it was not built: how to build it, not a JSON 404. */
function notBuilt(reply: FastifyReply): FastifyReply {
  return reply
    .code(503)
    .type('text/html; charset=utf-8')
    .header('cache-control', 'no-store')
    .send(
      [
        '<!doctype html>',
        '<html lang="en"><head><meta charset="utf-8"><title>Cove: dashboard not built</title></head><body>',
        '<h1>The web dashboard was not built</h1>',
        '<p>This Cove daemon found no <code>dist/web/index.html</code>. In the source checkout, run',
        '<code>npm run build</code> (and <code>npm run package</code> again for a single executable), then reload.</p>',
        '<p>The API (<a href="/api/v2/buildinfo">/api/v2</a>) and the CLI work without it.</p>',
        '</body></html>',
        '',
      ].join('\n'),
    );
}
