import type { AccessUrlReport } from '../../sdk/wire/index.js';
import { verdict } from './health-severity.js';

/** How long the access URL has to answer. */
const TIMEOUT_MS = 10_000;

/**
 * Asks the deployment's own `/healthz` through the access URL, as a user's browser would reach
 * it: not set is EACS01, not a URL EACS02, no answer EACS03 (error), an answer other than 200
 * EACS04 (warning).
 */
export async function checkAccessUrl(accessUrl: string): Promise<AccessUrlReport> {
  const base = { access_url: accessUrl, healthz_response: '', reachable: false, status_code: 0 };
  if (accessUrl === '') {
    return { ...base, ...verdict({ error: { code: 'EACS01', message: 'The access URL is not set.' } }, { strict: true }) };
  }
  let url: URL;
  try {
    url = new URL('/healthz', accessUrl);
  } catch {
    return {
      ...base,
      ...verdict({ error: { code: 'EACS02', message: `The access URL "${accessUrl}" is not a valid URL.` } }, { strict: true }),
    };
  }
  let response: Response;
  let body: string;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(TIMEOUT_MS), redirect: 'manual' });
    body = await response.text();
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    const why = cause?.code ?? cause?.message ?? (error as Error).message;
    return { ...base, ...verdict({ error: { code: 'EACS03', message: `Could not fetch ${url.href}: ${why}.` } }, { strict: true }) };
  }
  const found = { ...base, healthz_response: body.slice(0, 1024), reachable: true, status_code: response.status };
  if (response.status !== 200) {
    return {
      ...found,
      ...verdict({ warnings: [{ code: 'EACS04', message: `${url.href} answered ${response.status}, not 200.` }] }, { strict: true }),
    };
  }
  return { ...found, ...verdict({}, { strict: true }) };
}
