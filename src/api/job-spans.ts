import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { AcquiredJob } from '../sdk/wire/index.js';
import { inSpan, traceHeaders, tracer } from '../lib/trace-context.js';

interface JobSpan {
  readonly span: Span;
  readonly context: Context;
}

/**
 * The spans of the jobs one provisioner daemon holds: one trace per job, from its acquisition to
 * its report. The job's trace context goes to the daemon with the job (`trace_metadata`, as the
 * reference's job message carries it), so the provisioner daemon's spans join the same trace,
 * wherever it runs.
 */
export class JobSpans {
  readonly #held = new Map<string, JobSpan>();

  constructor(private readonly daemonName: string) {}

  /** A job was claimed (the search began at `lookedAt`): starts its trace; the headers to send with it. */
  acquired(job: AcquiredJob, lookedAt: number): Record<string, string> {
    const span = tracer.startSpan(
      `provisioner job ${job.type}`,
      {
        kind: SpanKind.SERVER,
        startTime: lookedAt,
        attributes: {
          'cove.job.id': job.job_id,
          'cove.job.type': job.type,
          'cove.job.provisioner': job.provisioner,
          'cove.provisioner_daemon.name': this.daemonName,
        },
      },
      ROOT_CONTEXT,
    );
    if (!span.isRecording()) return {};
    const active = trace.setSpan(ROOT_CONTEXT, span);
    tracer.startSpan('acquire', { startTime: lookedAt }, active).end();
    this.#held.set(job.job_id, { span, context: active });
    return traceHeaders(active);
  }

  /** Runs a step of the job (an update, its report) as a child of its span; the step alone when it has none. */
  step<T>(jobId: string, name: string, work: () => Promise<T>): Promise<T> {
    const held = this.#held.get(jobId);
    if (held === undefined) return work();
    return context.with(held.context, () => inSpan(name, { 'cove.job.id': jobId }, work));
  }

  /** The job's report is recorded (or the daemon went away holding it): ends its trace. */
  end(jobId: string, outcome: string): void {
    const held = this.#held.get(jobId);
    if (held === undefined) return;
    this.#held.delete(jobId);
    held.span.setAttribute('cove.job.outcome', outcome);
    if (outcome !== 'complete') held.span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
    held.span.end();
  }

  endAll(outcome: string): void {
    for (const jobId of [...this.#held.keys()]) this.end(jobId, outcome);
  }
}
