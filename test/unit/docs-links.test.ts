import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { REPOSITORY_ROOT } from '../helpers/repository-root.js';

// README.md and docs/*.md travel with the repository: whatever they point at must be in it. They
// point two ways: Markdown links, relative to the page, and paths written as code (`src/cli/main.ts`,
// `docs/apps.md`), relative to the repository root.

const ROOT = REPOSITORY_ROOT;

/** Files of the repository: tracked ones and new ones not ignored, as a clone would have them once committed. */
const FILES: ReadonlySet<string> = new Set(
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' })
    .split('\n')
    .filter((line) => line !== ''),
);
const DIRECTORIES: ReadonlySet<string> = new Set(
  [...FILES].flatMap((file) => {
    const parts = file.split('/');
    return parts.slice(1).map((_part, index) => parts.slice(0, index + 1).join('/'));
  }),
);
const TOP_LEVEL: ReadonlySet<string> = new Set([...FILES].map((file) => file.split('/')[0] ?? ''));

const PAGES = ['README.md', ...readdirSync(join(ROOT, 'docs')).flatMap((name) => (name.endsWith('.md') ? [`docs/${name}`] : []))];

interface Reference {
  readonly page: string;
  readonly line: number;
  readonly target: string;
}

/** The page's lines outside fenced code blocks, with their numbers. */
function proseLines(text: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fenced = false;
  text.split('\n').forEach((line, index) => {
    if (line.startsWith('```')) fenced = !fenced;
    else if (!fenced) out.push({ line: index + 1, text: line });
  });
  return out;
}

/** `[text](target)` links, images included; web addresses are not the repository's business. */
function markdownLinks(page: string, text: string): Reference[] {
  return proseLines(text).flatMap(({ line, text: content }) =>
    [...content.replace(/`[^`]*`/g, '').matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
      .map((match) => match[1] ?? '')
      .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
      .map((target) => ({ page, line, target })),
  );
}

/**
 * Paths written as code that name something in the repository: those starting with `../` (which
 * leave it) or with one of its top-level entries. Patterns (`*`, `<x>`, `{id}`) are not paths.
 */
function codePaths(page: string, text: string): Reference[] {
  return proseLines(text).flatMap(({ line, text: content }) =>
    [...content.matchAll(/`([^`\s]+)`/g)]
      .map((match) => match[1] ?? '')
      .filter((path) => !/[*<>{}$~]/.test(path))
      .filter((path) => path.startsWith('../') || (path.includes('/') && TOP_LEVEL.has(path.split('/')[0] ?? '')))
      .map((target) => ({ page, line, target })),
  );
}

/** The path inside the repository a reference names, or undefined when it leaves the repository. */
function repositoryPath(from: string, target: string): string | undefined {
  const full = resolve(from, target);
  const rel = relative(ROOT, full);
  if (rel.startsWith('..') || resolve(rel) === rel) return undefined;
  return rel.split(sep).join(posix.sep);
}

function exists(path: string): boolean {
  const trimmed = path.replace(/\/$/, '');
  return trimmed === '' || FILES.has(trimmed) || DIRECTORIES.has(trimmed) || FILES.has(`${trimmed}.ts`);
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
function headingAnchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
    .replace(/ /g, '-');
}

function anchors(text: string): Set<string> {
  return new Set(
    proseLines(text).flatMap(({ text: line }) => (/^#{1,6} (.+)$/.exec(line)?.[1] ?? '').split('\0').filter(Boolean).map(headingAnchor)),
  );
}

/** What is wrong with one reference, or undefined. */
function problem(reference: Reference, fromDirectory: string): string | undefined {
  const [path = '', fragment] = reference.target.split('#');
  if (path === '') {
    const text = readFileSync(join(ROOT, reference.page), 'utf8');
    return fragment === undefined || anchors(text).has(fragment) ? undefined : `there is no heading for #${fragment}`;
  }
  const inside = repositoryPath(fromDirectory, decodeURIComponent(path));
  if (inside === undefined) return 'points outside the repository';
  if (!exists(inside)) return `${inside} is not a file of the repository`;
  if (fragment !== undefined && inside.endsWith('.md') && !anchors(readFileSync(join(ROOT, inside), 'utf8')).has(fragment)) {
    return `${inside} has no heading for #${fragment}`;
  }
  return undefined;
}

describe('links in README.md and docs/', () => {
  it('finds the pages and the references in them', () => {
    assert.ok(PAGES.includes('docs/templates.md') && PAGES.includes('docs/cli.md'), PAGES.join(', '));
    const all = PAGES.flatMap((page) => {
      const text = readFileSync(join(ROOT, page), 'utf8');
      return [...markdownLinks(page, text), ...codePaths(page, text)];
    });
    assert.ok(all.length > 50, `expected many references, found ${all.length}`);
  });

  for (const page of PAGES) {
    it(`${page} points only at files of the repository that exist`, () => {
      const text = readFileSync(join(ROOT, page), 'utf8');
      const broken = [
        ...markdownLinks(page, text).map((reference) => ({ reference, why: problem(reference, dirname(join(ROOT, page))) })),
        ...codePaths(page, text).map((reference) => ({ reference, why: problem(reference, ROOT) })),
      ]
        .filter(({ why }) => why !== undefined)
        .map(({ reference, why }) => `${reference.page}:${reference.line}: ${reference.target} ${why}`);
      assert.deepEqual(broken, []);
    });
  }
});
