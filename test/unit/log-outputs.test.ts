import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { createLogger } from '../../src/daemon/logger.js';

describe('the daemon log outputs', () => {
  const root = mkdtempSync(join(tmpdir(), 'cove-log-outputs-'));
  after(() => rmSync(root, { recursive: true, force: true }));
  const read = (path: string): string[] => readFileSync(path, 'utf8').split('\n').filter(Boolean);

  it('writes readable and JSON lines to two files at once, debug lines only when verbose', () => {
    for (const verbose of [false, true]) {
      const human = join(root, `human-${verbose}.log`);
      const json = join(root, 'nested', `json-${verbose}.log`);
      const logger = createLogger({ human, json, verbose });
      logger.debug({ step: 1 }, 'a detail');
      logger.info({ step: 2 }, 'a fact');
      logger.error({ headers: { cookie: 'secret' } }, 'a failure');
      const lines = read(json).map((line) => JSON.parse(line) as Record<string, unknown>);
      assert.deepEqual(
        lines.map((line) => [line['level'], line['msg']]),
        [...(verbose ? [[20, 'a detail']] : []), [30, 'a fact'], [50, 'a failure']],
      );
      assert.equal((lines.at(-1)?.['headers'] as Record<string, string>)['cookie'], '[redacted]');
      const text = read(human);
      assert.equal(text.length, verbose ? 3 : 2);
      assert.match(text.at(-2) ?? '', /^\d{4}-\d\d-\d\dT\S+Z INFO {2}a fact step=2$/);
      assert.doesNotMatch(text.join('\n'), /secret/);
    }
  });

  it('keeps only the debug lines a filter matches, and every line of the other levels', () => {
    const json = join(root, 'filtered.log');
    const logger = createLogger({ human: '', json, verbose: false, filter: ['relay', 'job_id'] });
    logger.debug('relay opened');
    logger.debug({ job_id: 'j1' }, 'job started');
    logger.debug('unrelated detail');
    logger.info('unrelated fact');
    assert.deepEqual(
      read(json).map((line) => (JSON.parse(line) as { msg: string }).msg),
      ['relay opened', 'job started', 'unrelated fact'],
    );
  });

  it('writes nothing, and opens nothing, with neither output', () => {
    const logger = createLogger({ human: '', json: '', verbose: true });
    assert.equal(logger.isLevelEnabled('error'), false);
  });
});
