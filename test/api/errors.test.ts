import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { rawRequest } from '../helpers/expect-api-error.js';

describe('bad input gets a 4xx in the error shape', () => {
  let test: TestDaemon;
  let token: string;
  before(async () => {
    test = await startTestDaemon();
    token = (await createOwner(test)).token ?? '';
  });
  after(async () => test.close());

  const json = { 'content-type': 'application/json' };

  it('answers malformed JSON with 400', async () => {
    const res = await rawRequest(test.url, 'POST', '/users/login', { headers: json, body: '{"email": "a@example.com",' });
    assert.equal(res.status, 400);
    assert.equal(res.body['message'], 'Request body must be valid JSON.');
  });

  it('answers an empty JSON body and a non-object body with 400', async () => {
    assert.equal((await rawRequest(test.url, 'POST', '/users/login', { headers: json, body: '' })).status, 400);
    const array = await rawRequest(test.url, 'POST', '/users/login', { headers: json, body: '[1,2]' });
    assert.equal(array.status, 400);
    assert.equal(array.body['message'], 'Request body must be valid JSON.');
  });

  it('lists one validation per missing or mistyped field', async () => {
    const res = await rawRequest(test.url, 'POST', '/users/first', {
      headers: json,
      body: JSON.stringify({ email: 'not-an-email', password: 12345 }),
    });
    assert.equal(res.status, 400);
    assert.equal(res.body['message'], 'Validation failed.');
    const fields = (res.body['validations'] as { field: string; detail: string }[]).map((v) => v.field).sort();
    assert.deepEqual(fields, ['email', 'password', 'username']);
  });

  it('does not coerce JSON types: a number is not a string', async () => {
    const res = await rawRequest(test.url, 'POST', '/users/login', {
      headers: json,
      body: JSON.stringify({ email: 'owner@example.com', password: 1234 }),
    });
    assert.equal(res.status, 400);
    assert.deepEqual(
      (res.body['validations'] as { field: string }[]).map((v) => v.field),
      ['password'],
    );
  });

  it('answers an unsupported content type with 415', async () => {
    const res = await rawRequest(test.url, 'POST', '/users/login', { headers: { 'content-type': 'text/csv' }, body: 'a,b' });
    assert.equal(res.status, 415);
    assert.equal(typeof res.body['message'], 'string');
  });

  it('answers an oversized body with 413', async () => {
    const res = await rawRequest(test.url, 'POST', '/users/login', {
      headers: json,
      body: JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(2 * 1024 * 1024) }),
    });
    assert.equal(res.status, 413);
    assert.equal(res.body['message'], 'Request body is too large.');
  });

  it('answers unknown routes with 404', async () => {
    const res = await rawRequest(test.url, 'GET', '/no/such/route');
    assert.equal(res.status, 404);
    assert.equal(res.body['message'], 'Route not found.');
  });

  it('answers a wrongly typed query parameter with 400 naming it', async () => {
    const res = await rawRequest(test.url, 'GET', '/users/me/keys/tokens?include_all=maybe', {
      headers: { 'Service-Session-Token': token },
    });
    assert.equal(res.status, 400);
    assert.equal(res.body['message'], 'Query parameters have invalid values.');
    assert.deepEqual(
      (res.body['validations'] as { field: string }[]).map((v) => v.field),
      ['include_all'],
    );
  });

  it('answers a NUL byte in a path parameter, the query or the body with 400 naming where', async () => {
    const auth = { 'Service-Session-Token': token };
    const where = async (method: string, path: string, body?: string) => {
      const res = await rawRequest(test.url, method, path, { headers: { ...auth, ...json }, ...(body === undefined ? {} : { body }) });
      assert.equal(res.status, 400, `${method} ${path}`);
      return (res.body['validations'] as { field: string }[] | undefined)?.map((v) => v.field);
    };
    assert.deepEqual(await where('GET', '/users/nul%00byte'), ['params.user']);
    assert.deepEqual(await where('GET', '/users?q=a%00b'), ['query.q']);
    assert.deepEqual(await where('GET', '/users/me?unused=%00'), ['query.unused']);
    assert.deepEqual(await where('POST', '/users/validate-password', '{"password":"a\\u0000b"}'), ['body.password']);
  });

  it('answers 401 before looking at the body of an authenticated route', async () => {
    const res = await rawRequest(test.url, 'POST', '/users/me/keys/tokens', { headers: json, body: '{not json' });
    assert.equal(res.status, 401);
  });
});
