import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import Fastify, { LogController, type FastifyReply, type FastifyRequest } from 'fastify';
import { pino } from 'pino';
import { fastifyLogging, QuietRequestLogController, requestLogger } from '../../src/api/request-logger.js';

/** A pino logger at `level` and the entries it wrote. */
function capturing(level: string): { logger: pino.Logger; entries: Record<string, unknown>[] } {
  const entries: Record<string, unknown>[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line !== '') entries.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level, base: undefined }, stream), entries };
}

/** Lets the pino stream deliver what was written. */
const flushed = () => new Promise((resolve) => setImmediate(resolve));

describe('request logger', () => {
  it('writes what the request logs at enabled levels with its request id, and nothing below them', async () => {
    const { logger, entries } = capturing('warn');
    const log = requestLogger(logger, { reqId: 'req-1' }, {});
    log.info('not at warn');
    log.debug({ detail: 1 }, 'nor this');
    log.warn({ code: 7 }, 'slow answer');
    log.error(new Error('broken'), 'failed');
    log.child({ part: 'rpc' }).warn('from a child');
    await flushed();
    assert.deepEqual(
      entries.map((entry) => [entry['msg'], entry['reqId'], entry['code'] ?? entry['part'] ?? null]),
      [
        ['slow answer', 'req-1', 7],
        ['failed', 'req-1', null],
        ['from a child', 'req-1', 'rpc'],
      ],
    );
    assert.equal((entries[1]?.['err'] as { message?: string } | undefined)?.message, 'broken');
    assert.equal(log.level, 'warn');
  });

  it('logs every level the parent logs, and honours a level of its own', async () => {
    const { logger, entries } = capturing('debug');
    const log = requestLogger(logger, { reqId: 'req-2' }, {});
    log.debug('incoming request');
    log.trace('too fine');
    log.level = 'error';
    log.warn('now below the level');
    await flushed();
    assert.deepEqual(
      entries.map((entry) => [entry['msg'], entry['reqId']]),
      [['incoming request', 'req-2']],
    );
    assert.equal(logger.level, 'debug', 'the parent keeps its level');
  });

  it('leaves out the lines fastify logs at info for every request, and keeps those of failed answers', async () => {
    const lines = async (controller: LogController) => {
      const { logger, entries } = capturing('info');
      const log = requestLogger(logger, { reqId: 'req-3' }, {});
      const request = { log } as unknown as FastifyRequest;
      const reply = { log, elapsedTime: 1, statusCode: 200 } as unknown as FastifyReply;
      controller.incomingRequest(request, reply);
      controller.requestCompleted(null, request, reply);
      controller.requestCompleted(new Error('socket hang up'), request, reply);
      await flushed();
      return entries.map((entry) => entry['msg']);
    };
    assert.deepEqual(await lines(new LogController()), ['incoming request', 'request completed', 'request errored']);
    assert.deepEqual(await lines(new QuietRequestLogController()), ['request errored']);
  });

  /** A fastify app logging as the daemon does, the entries it wrote, and how many 'finish' listeners each answer had. */
  async function served(logRequests: boolean | 'no logger') {
    const { logger, entries } = capturing('info');
    const app = Fastify(logRequests === 'no logger' ? {} : fastifyLogging(logger, logRequests));
    const finishListeners: number[] = [];
    app.get('/fine', async (_request, reply) => {
      finishListeners.push(reply.raw.listenerCount('finish'));
      return { ok: true };
    });
    app.get('/broken', async () => {
      throw new Error('broken');
    });
    await app.ready();
    assert.equal((await app.inject('/fine')).statusCode, 200);
    assert.equal((await app.inject('/broken')).statusCode, 500);
    await app.close();
    await flushed();
    return { entries, finishListeners };
  }

  it('without --verbose, does not time answers, and still logs failed ones with their request id', async () => {
    const { entries, finishListeners } = await served(false);
    // The test's injected responses have listeners of their own: as many as fastify without a logger.
    assert.deepEqual(finishListeners, (await served('no logger')).finishListeners, 'fastify listened for the end of a plain answer');
    assert.ok((finishListeners[0] ?? 0) < ((await served(true)).finishListeners[0] ?? 0), 'with --verbose, fastify times each answer');
    assert.deepEqual(
      entries.map((entry) => [entry['level'], entry['msg'], entry['reqId']]),
      [[50, 'broken', 'req-2']],
    );
  });

  it('with --verbose, logs every request', async () => {
    const { entries } = await served(true);
    const messages = entries.map((entry) => entry['msg']);
    assert.deepEqual(messages.filter((message) => message === 'incoming request').length, 2);
    assert.deepEqual(messages.filter((message) => message === 'request completed').length, 2);
    assert.ok(messages.includes('broken'));
  });
});
