import { VERSION } from '../lib/version.js';

/** What `GET /updatecheck` answers. */
export interface UpdateCheckResult {
  readonly current: boolean;
  readonly version: string;
  readonly url: string;
}

/** How long one request to the release feed may take. */
const FEED_TIMEOUT_MS = 30_000;

/**
 * Asks a release feed for the newest version and remembers the answer. The feed is a JSON document
 * `{"version": "1.2.3", "url": "https://…/releases/1.2.3"}`. Until a check succeeds, and when
 * none is configured, the running version is the newest known.
 */
export class UpdateChecker {
  readonly #feedUrl: string;
  readonly #running: string;
  #latest: UpdateCheckResult;

  constructor(feedUrl: string, running: string = VERSION) {
    this.#feedUrl = feedUrl;
    this.#running = running;
    this.#latest = { current: true, version: running, url: '' };
  }

  /** The last answer. */
  latest(): UpdateCheckResult {
    return this.#latest;
  }

  /**
   * Asks the feed once. Returns the new answer, and whether it names a newer version than the
   * previous answer did (so the daemon says so once per release, not once a day). Throws when the
   * feed cannot be read; the previous answer stays.
   */
  async check(): Promise<{ readonly result: UpdateCheckResult; readonly newlyAvailable: boolean }> {
    const response = await fetch(this.#feedUrl, { headers: { accept: 'application/json' }, signal: AbortSignal.timeout(FEED_TIMEOUT_MS) });
    if (!response.ok) {
      await response.body?.cancel();
      throw new Error(`the release feed ${this.#feedUrl} answered HTTP ${response.status}`);
    }
    const feed = (await response.json()) as { version?: unknown; url?: unknown };
    if (typeof feed.version !== 'string' || parseVersion(feed.version) === undefined) {
      throw new Error(`the release feed ${this.#feedUrl} has no version of the form x.y.z`);
    }
    const version = feed.version.replace(/^v/, '');
    const newer = compareVersions(version, this.#running) > 0;
    const previous = this.#latest;
    this.#latest = newer
      ? { current: false, version, url: typeof feed.url === 'string' ? feed.url : '' }
      : { current: true, version: this.#running, url: '' };
    return { result: this.#latest, newlyAvailable: newer && (previous.current || previous.version !== version) };
  }
}

/** Major, minor, patch and the pre-release part of `x.y.z[-pre]` (a leading `v` allowed). */
function parseVersion(text: string): [number, number, number, string] | undefined {
  const match = /^v?(\d+)\.(\d+)\.(\d+)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?$/.exec(text.trim());
  if (!match) return undefined;
  return [Number(match[1]), Number(match[2]), Number(match[3]), match[4] ?? ''];
}

/** Orders versions as semantic versioning does, closely enough for release feeds: a pre-release sorts before its release. */
export function compareVersions(a: string, b: string): number {
  const left = parseVersion(a);
  const right = parseVersion(b);
  if (!left || !right) return 0;
  for (let i = 0; i < 3; i++) {
    const diff = (left[i] as number) - (right[i] as number);
    if (diff !== 0) return Math.sign(diff);
  }
  if (left[3] === right[3]) return 0;
  if (left[3] === '') return 1;
  if (right[3] === '') return -1;
  return left[3] < right[3] ? -1 : 1;
}
