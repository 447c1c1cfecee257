import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { safeRedirect } from '../../src/domain/sign-in-state.js';

describe('where a sign-in sends the browser', () => {
  it('keeps paths on the deployment, with their query and fragment', () => {
    assert.equal(safeRedirect('/cli-auth'), '/cli-auth');
    assert.equal(safeRedirect('/workspaces?filter=owner:me#top'), '/workspaces?filter=owner:me#top');
    assert.equal(safeRedirect(undefined), '/');
    assert.equal(safeRedirect(''), '/');
  });

  it('sends anything that could leave the deployment to / instead', () => {
    for (const target of [
      'https://evil.example/',
      '//evil.example/path',
      '/\\evil.example',
      '\\\\evil.example',
      'javascript:alert(1)',
      'evil.example',
      '/%0d%0aSet-Cookie:x=1'.replace('%0d%0a', '\r\n'),
      '/\tevil',
    ]) {
      assert.equal(safeRedirect(target), '/', target);
    }
  });
});
