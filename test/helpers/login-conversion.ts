import assert from 'node:assert/strict';
import type { Browser } from './browser.js';
import { STRONG_PASSWORD, type TestDaemon } from './test-daemon.js';

/** `POST /users/me/convert-login`, with its cookie put into the browser that goes on to GitHub. */
export async function startConversion(
  browser: Browser,
  test: TestDaemon,
  token: string,
  toType: 'github' | 'oidc',
): Promise<{ state_string: string }> {
  const response = await fetch(`${test.url}/api/v2/users/me/convert-login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'service-session-token': token },
    body: JSON.stringify({ to_type: toType, password: STRONG_PASSWORD }),
  });
  assert.equal(response.status, 201);
  for (const line of response.headers.getSetCookie()) {
    const [pair = ''] = line.split(';');
    const separator = pair.indexOf('=');
    browser.setCookie(test.url, pair.slice(0, separator), pair.slice(separator + 1));
  }
  return (await response.json()) as { state_string: string };
}
