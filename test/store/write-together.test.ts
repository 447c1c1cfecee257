import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { writeTogetherReading } from '../../src/store/write-together.js';
import { startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

describe('writes with reads in the same round trip', () => {
  let test: TestDaemon;
  before(async () => {
    test = await startTestDaemon({ flags: { provisionerDaemons: '0' } });
  });
  after(async () => test.close());

  const keysLike = (prefix: string) =>
    test.daemon.store.db.selectFrom('site_config').select('key').where('key', 'like', `${prefix}%`).orderBy('key');

  it('reads the database as it was just before the writes, then has them all', async () => {
    const { db, dialect } = test.daemon.store;
    await db.insertInto('site_config').values({ key: 'together-a', value: '1' }).execute();
    const read = await writeTogetherReading(
      db,
      dialect,
      [
        (q) => q.insertInto('site_config').values({ key: 'together-b', value: '2' }),
        (q) => q.updateTable('site_config').set({ value: '3' }).where('key', '=', 'together-a'),
      ],
      { before: keysLike('together-').select('value'), none: undefined },
    );
    assert.deepEqual(read.before, [{ key: 'together-a', value: '1' }]);
    assert.deepEqual(read.none, []);
    assert.deepEqual(await keysLike('together-').select('value').execute(), [
      { key: 'together-a', value: '3' },
      { key: 'together-b', value: '2' },
    ]);
  });

  it('writes nothing when one write fails', async () => {
    const { db, dialect } = test.daemon.store;
    await db.insertInto('site_config').values({ key: 'failing-a', value: '1' }).execute();
    await assert.rejects(
      writeTogetherReading(
        db,
        dialect,
        [
          (q) => q.insertInto('site_config').values({ key: 'failing-b', value: '2' }),
          (q) => q.insertInto('site_config').values({ key: 'failing-a', value: 'again' }),
        ],
        { keys: keysLike('failing-') },
      ),
    );
    assert.deepEqual(await keysLike('failing-').execute(), [{ key: 'failing-a' }]);
  });
});
