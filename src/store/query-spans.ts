import { trace, SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { LogEvent } from 'kysely';
import { tracer } from '../lib/trace-context.js';
import type { DialectName } from './database.js';

const SYSTEM: Readonly<Record<DialectName, string>> = { sqlite: 'sqlite', postgres: 'postgresql' };

/**
 * Records a finished query as a span, child of the active one, back-dated by its duration: kysely
 * tells of a query once it is done. Only queries made for something traced (a request, a job, a
 * stream) are recorded; others, and all of them when tracing is off, cost one lookup.
 */
export function traceQuery(event: LogEvent, dialect: DialectName): void {
  const parent = trace.getActiveSpan();
  if (parent === undefined || !parent.isRecording()) return;
  const end = Date.now();
  const sql = event.query.sql;
  const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY';
  const span = tracer.startSpan(operation, {
    kind: SpanKind.CLIENT,
    startTime: end - event.queryDurationMillis,
    // The statement's text only: its parameters may be secrets.
    attributes: { 'db.system.name': SYSTEM[dialect], 'db.operation.name': operation, 'db.query.text': sql },
  });
  if (event.level === 'error') {
    span.setStatus({ code: SpanStatusCode.ERROR, message: event.error instanceof Error ? event.error.message : String(event.error) });
  }
  span.end(end);
}
