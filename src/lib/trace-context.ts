import { context, propagation, ROOT_CONTEXT, trace, type Context, type Span, type Tracer } from '@opentelemetry/api';

/**
 * The tracer every part of Cove makes its spans with. Until `--trace` registers a provider (see
 * src/daemon/tracing.ts) it makes spans that record nothing, so code may start spans unconditionally;
 * code on a hot path checks `isRecording()` before doing more than that.
 */
export const tracer: Tracer = trace.getTracer('cove');

/** The current trace context as W3C headers (`traceparent`, `tracestate`), to send along with work handed on. */
export function traceHeaders(from: Context = context.active()): Record<string, string> {
  const carrier: Record<string, string> = {};
  propagation.inject(from, carrier);
  return carrier;
}

/** The context whose parent is the span that `headers` name, or a fresh root when they name none. */
export function contextFromHeaders(headers: Readonly<Record<string, string | string[] | undefined>> | undefined): Context {
  return headers === undefined ? ROOT_CONTEXT : propagation.extract(ROOT_CONTEXT, headers);
}

/** Runs `work` inside a new span, child of the active one, which ends (failed if `work` throws) when it settles. */
export async function inSpan<T>(name: string, attributes: Record<string, string | number>, work: (span: Span) => Promise<T>): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: 2, message: error instanceof Error ? error.message : String(error) });
      throw error;
    } finally {
      span.end();
    }
  });
}
