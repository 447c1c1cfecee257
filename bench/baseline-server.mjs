// The baseline for the API benchmark: a bare fastify route that answers with the bytes it is given,
// with no authentication, database or serialisation work. Prints its URL on stdout.
import Fastify from 'fastify';

const body = process.env.BENCH_BODY ?? '{}';
const app = Fastify({ logger: false });
app.get('/api/v2/users/me', async (_request, reply) => reply.type('application/json; charset=utf-8').send(body));
const address = await app.listen({ host: '127.0.0.1', port: 0 });
process.stdout.write(`${address}\n`);
process.on('SIGTERM', () => app.close().then(() => process.exit(0)));
