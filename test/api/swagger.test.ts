import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { startTestDaemon } from '../helpers/test-daemon.js';

describe('OpenAPI document', () => {
  it('is generated from the route schemas at /swagger when enabled', async () => {
    const test = await startTestDaemon({ flags: { swaggerEnable: 'true' } });
    try {
      const response = await fetch(`${test.url}/swagger`);
      assert.equal(response.status, 200);
      const document = (await response.json()) as { openapi: string; paths: Record<string, Record<string, { requestBody?: unknown }>> };
      assert.match(document.openapi, /^3\./);
      assert.ok(document.paths['/api/v2/buildinfo']?.['get']);
      assert.ok(document.paths['/api/v2/users/login']?.['post']?.requestBody, 'the login body schema is documented');
      assert.ok(document.paths['/api/v2/users/{user}/keys/tokens']?.['post']);
    } finally {
      await test.close();
    }
  });

  it('is not served when disabled', async () => {
    const test = await startTestDaemon();
    try {
      assert.equal((await fetch(`${test.url}/swagger`)).status, 404);
    } finally {
      await test.close();
    }
  });
});
