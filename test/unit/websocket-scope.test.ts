import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { WebSocket } from 'ws';
import type { ApiContext } from '../../src/api/context.js';
import { refuseWebSocketOutsideScope, registerWebSocketScope } from '../../src/api/websocket-scope.js';

/** The route groups here read nothing of the context. */
const context = {} as ApiContext;

async function socketGroup(app: FastifyInstance): Promise<void> {
  app.get('/socket', { websocket: true }, (socket) => socket.send('hello'));
}

async function plainGroup(app: FastifyInstance): Promise<void> {
  app.get('/plain', async () => ({ ok: true }));
}

function appWithGuard(): FastifyInstance {
  const app = Fastify();
  app.addHook('onRoute', function (route) {
    refuseWebSocketOutsideScope(this, route);
  });
  return app;
}

describe('the WebSocket scope', () => {
  it('serves WebSockets in the scope, and leaves the plain routes outside it without the plugin', async () => {
    const app = appWithGuard();
    await app.register(plainGroup);
    await registerWebSocketScope(app, [socketGroup], context);
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      const greeting = await new Promise<string>((resolve, reject) => {
        const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/socket`);
        socket.once('message', (data: Buffer) => {
          resolve(data.toString('utf8'));
          socket.close();
        });
        socket.once('error', reject);
      });
      assert.equal(greeting, 'hello');
      assert.equal(app.hasDecorator('websocketServer'), false, 'the plugin reached the root');
      assert.deepEqual(await (await fetch(`${url}/plain`)).json(), { ok: true });
    } finally {
      await app.close();
    }
  });

  it('refuses, at start, a WebSocket route registered outside the scope', async () => {
    const app = appWithGuard();
    await registerWebSocketScope(app, [plainGroup], context);
    await assert.rejects(async () => {
      await app.register(socketGroup);
      await app.ready();
    }, /\/socket serves WebSockets: register its route group through registerWebSocketScope/);
    await app.close().catch(() => undefined);
  });
});
