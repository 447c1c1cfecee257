import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TemplateStatisticsCache, type TemplateStatistics } from '../../src/store/template-statistics-cache.js';

const figures = (activeUsers: number): TemplateStatistics => ({ activeUsers, buildDurations: new Map([['start', [1000]]]) });

describe("the templates' statistics cache", () => {
  it('gives back what it kept, and only for the templates asked', () => {
    const cache = new TemplateStatisticsCache();
    assert.equal(cache.fresh(['t1']).size, 0);
    cache.keep(new Map([['t1', figures(3)]]), cache.begin());
    assert.deepEqual([...cache.fresh(['t1', 't2'])], [['t1', figures(3)]]);
  });

  it('drops a template whose figures changed here, so that the next read computes them again', () => {
    const cache = new TemplateStatisticsCache();
    cache.keep(
      new Map([
        ['t1', figures(3)],
        ['t2', figures(1)],
      ]),
      cache.begin(),
    );
    cache.invalidate('t1');
    assert.deepEqual([...cache.fresh(['t1', 't2']).keys()], ['t2']);
  });

  it('does not keep figures computed before a change that came while they were computed', () => {
    const cache = new TemplateStatisticsCache();
    const begun = cache.begin();
    // A workspace is made from t1 while its figures are being read.
    cache.invalidate('t1');
    cache.keep(
      new Map([
        ['t1', figures(3)],
        ['t2', figures(1)],
      ]),
      begun,
    );
    assert.deepEqual([...cache.fresh(['t1', 't2']).keys()], ['t2']);
    // Figures begun after the change are kept.
    cache.keep(new Map([['t1', figures(4)]]), cache.begin());
    assert.equal(cache.fresh(['t1']).get('t1')?.activeUsers, 4);
  });
});
