import { context, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { contextFromHeaders, tracer } from '../lib/trace-context.js';

interface RequestSpan {
  readonly span: Span;
  readonly context: Context;
}

/**
 * A server span for every request, named by its route pattern (`GET /api/v2/users/:user`), child
 * of the caller's span when it sends a W3C `traceparent`. What the request does (its queries, the
 * relay stream it opens) happens inside the span's context, so those spans are its children: the
 * context is entered for the hooks and again for the handler, and the request's own events (its
 * body arriving) are bound to it, since they are emitted from the connection's context.
 * Registered only with `--trace`: without it, requests pay nothing.
 */
export function registerRequestSpans(app: FastifyInstance): void {
  const spans = new WeakMap<FastifyRequest, RequestSpan>();
  const end = (request: FastifyRequest, status: number | undefined): void => {
    const entry = spans.get(request);
    if (entry === undefined) return;
    spans.delete(request);
    if (status !== undefined) {
      entry.span.setAttribute('http.response.status_code', status);
      if (status >= 500) entry.span.setStatus({ code: SpanStatusCode.ERROR });
    }
    entry.span.end();
  };
  app.addHook('onRequest', (request, reply, done) => {
    const parent = contextFromHeaders(request.headers);
    const route = request.routeOptions.url;
    const span = tracer.startSpan(
      `${request.method} ${route ?? 'unmatched'}`,
      {
        kind: SpanKind.SERVER,
        attributes: {
          'http.request.method': request.method,
          'url.path': request.url.split('?')[0] ?? '',
          ...(route === undefined ? {} : { 'http.route': route }),
          'client.address': request.ip,
          'http.request.id': request.id,
        },
      },
      parent,
    );
    const active = trace.setSpan(parent, span);
    spans.set(request, { span, context: active });
    context.bind(active, request.raw);
    // An upgraded WebSocket never answers: its span lasts as long as its connection.
    if ((request.raw as { upgrade?: boolean }).upgrade === true) request.raw.socket.once('close', () => end(request, 101));
    context.with(active, done);
  });
  app.addHook('preHandler', (request, _reply, done) => {
    const entry = spans.get(request);
    if (entry === undefined) done();
    else context.with(entry.context, done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    end(request, reply.statusCode);
    done();
  });
}
