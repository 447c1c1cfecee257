// Where a build spent its time: each stage (provisioner steps, agent connection, agent scripts) as
// a horizontal bar on one time axis, with the resources and scripts inside it below. The chart is a
// table, so that a screen reader reads every row's name and duration; the bars are only drawn.
import type { WorkspaceBuildTimings } from '../../sdk/wire/index.js';
import { api } from '../api.js';
import { Loading, useLoad } from './feedback.js';
import { formatDuration } from './status.js';

const STAGE_LABELS: Readonly<Record<string, string>> = {
  init: 'Initialize',
  plan: 'Plan',
  graph: 'Graph',
  apply: 'Apply',
  connect: 'Connect agent',
  start: 'Startup scripts',
  stop: 'Shutdown scripts',
  cron: 'Scheduled scripts',
};
const STAGE_ORDER = Object.keys(STAGE_LABELS);
/** Beyond these, a stage's items are summed up in one line: a chart of a thousand resources reads as none. */
const ITEMS_PER_STAGE = 25;

interface Span {
  readonly label: string;
  readonly start: number;
  readonly end: number;
  readonly failed?: boolean;
}

interface StageRow extends Span {
  readonly stage: string;
  readonly items: readonly Span[];
}

function spanOf(label: string, startedAt: string, endedAt: string, failed = false): Span {
  const start = new Date(startedAt).getTime();
  const end = new Date(endedAt).getTime();
  // A timing still running (or with a clock gap) ends where it starts rather than drawing backwards.
  return { label, start, end: Number.isFinite(end) && end >= start ? end : start, failed };
}

/** The rows of the chart: one per stage present, in the order a build runs them. */
export function stageRows(timings: WorkspaceBuildTimings): StageRow[] {
  const byStage = new Map<string, Span[]>();
  const add = (stage: string, span: Span) => {
    const list = byStage.get(stage);
    if (list) list.push(span);
    else byStage.set(stage, [span]);
  };
  for (const item of timings.provisioner_timings) {
    const label = item.resource && item.action ? `${item.resource} (${item.action})` : item.resource || item.action || item.source;
    add(item.stage, spanOf(label, item.started_at, item.ended_at));
  }
  for (const item of timings.agent_connection_timings) add(item.stage, spanOf(item.workspace_agent_name, item.started_at, item.ended_at));
  for (const item of timings.agent_script_timings) {
    const failed = item.status !== 'ok' || item.exit_code !== 0;
    add(item.stage, spanOf(`${item.workspace_agent_name}: ${item.display_name}`, item.started_at, item.ended_at, failed));
  }
  const order = (stage: string) => (STAGE_ORDER.includes(stage) ? STAGE_ORDER.indexOf(stage) : STAGE_ORDER.length);
  return [...byStage]
    .sort(([a], [b]) => order(a) - order(b))
    .map(([stage, items]) => ({
      stage,
      label: STAGE_LABELS[stage] ?? stage,
      start: Math.min(...items.map((item) => item.start)),
      end: Math.max(...items.map((item) => item.end)),
      failed: items.some((item) => item.failed),
      items: [...items].sort((a, b) => a.start - b.start),
    }));
}

function percent(value: number): string {
  return `${Math.max(0, Math.min(100, value)).toFixed(2)}%`;
}

function Bar({ span, from, total, stage }: { span: Span; from: number; total: number; stage: boolean }) {
  const left = total > 0 ? ((span.start - from) / total) * 100 : 0;
  // At least a sliver, so that an instant step still shows where it happened.
  const width = total > 0 ? Math.max(0.6, ((span.end - span.start) / total) * 100) : 100;
  const tone = span.failed ? 'timing-bar-failed' : stage ? 'timing-bar-stage' : 'timing-bar-item';
  return (
    <svg className="timing-bar" aria-hidden="true" focusable="false" preserveAspectRatio="none">
      <rect className={tone} x={percent(left)} y="15%" width={percent(Math.min(width, 100 - left))} height="70%" rx="2" />
    </svg>
  );
}

/**
 * The chart of one build's timings, read again whenever `revision` changes: the build's status,
 * and its agents' lifecycle states, as their connection and scripts add timings after the build ends.
 */
export function BuildTimings({ buildId, revision }: { buildId: string; revision: string }) {
  const { data, error } = useLoad(() => api<WorkspaceBuildTimings>('GET', `/workspacebuilds/${buildId}/timings`), [buildId, revision]);
  const rows = data ? stageRows(data) : [];
  const from = Math.min(...rows.map((row) => row.start));
  const to = Math.max(...rows.map((row) => row.end));
  const total = rows.length > 0 ? to - from : 0;
  return (
    <section className="card build-timings" aria-labelledby={`timings-${buildId}`}>
      <h2 id={`timings-${buildId}`}>Build timings</h2>
      {!data ? (
        <Loading error={error} />
      ) : rows.length === 0 ? (
        <p className="muted">No timings recorded for this build yet.</p>
      ) : (
        <>
          <p className="muted">
            {formatDuration(total)} from the first step to the last, across {rows.length} stage{rows.length === 1 ? '' : 's'}.
          </p>
          <table className="timings-table" aria-label="Build timings by stage">
            <thead>
              <tr>
                <th scope="col">Step</th>
                <th scope="col" className="timing-bar-cell">
                  <span className="visually-hidden">Time line</span>
                </th>
                <th scope="col">Duration</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <StageRows key={row.stage} row={row} from={from} total={total} />
              ))}
            </tbody>
          </table>
        </>
      )}
    </section>
  );
}

function StageRows({ row, from, total }: { row: StageRow; from: number; total: number }) {
  const shown = row.items.slice(0, ITEMS_PER_STAGE);
  const rest = row.items.length - shown.length;
  return (
    <>
      <tr className="timing-stage" data-timing-stage={row.stage}>
        <th scope="row">
          {row.label}
          {row.failed && <span className="timing-failed"> (failed)</span>}
        </th>
        <td className="timing-bar-cell">
          <Bar span={row} from={from} total={total} stage />
        </td>
        <td>{formatDuration(row.end - row.start)}</td>
      </tr>
      {shown.map((item, index) => (
        <tr key={`${row.stage}-${index}`} className="timing-item">
          <th scope="row">
            {item.label}
            {item.failed && <span className="timing-failed"> (failed)</span>}
          </th>
          <td className="timing-bar-cell">
            <Bar span={item} from={from} total={total} stage={false} />
          </td>
          <td>{formatDuration(item.end - item.start)}</td>
        </tr>
      ))}
      {rest > 0 && (
        <tr className="timing-item">
          <th scope="row" colSpan={3} className="muted">
            and {rest} more
          </th>
        </tr>
      )}
    </>
  );
}
