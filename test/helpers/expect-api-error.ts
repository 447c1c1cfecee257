import assert from 'node:assert/strict';
import { ApiError } from '../../src/sdk/api-error.js';

/**
 * Awaits a call that must fail with `status` (and, when given, a message, detail or validation
 * matching `says`), and returns the error for further checks.
 */
export async function expectApiError(call: Promise<unknown>, status: number, says?: RegExp): Promise<ApiError> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof ApiError, `expected an ApiError, got ${String(error)}`);
    assert.equal(error.status, status, `expected ${status}, got ${error.status}: ${JSON.stringify(error.body)}`);
    assert.equal(typeof error.body.message, 'string');
    if (says) assert.match(JSON.stringify(error.body), says);
    return error;
  }
  assert.fail(`expected HTTP ${status}, but the call succeeded`);
}

/** Sends a raw request, for bodies the SDK would never produce. */
export async function rawRequest(
  baseUrl: string,
  method: string,
  path: string,
  init: { readonly body?: string; readonly headers?: Record<string, string> } = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${baseUrl}/api/v2${path}`, {
    method,
    headers: init.headers ?? {},
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  const text = await response.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    body = { text };
  }
  return { status: response.status, body, headers: response.headers };
}
