import type { HealthReport, HealthSeverity } from '../sdk/wire/index.js';
import { healthExitCode, healthHeadline, healthSectionLines } from './health-report-lines.js';
import type { CliIo } from './io.js';

const MARKS: Readonly<Record<HealthSeverity, string>> = { ok: '✔', warning: '▲', error: '✘' };
const COLORS: Readonly<Record<HealthSeverity, string>> = { ok: 'green', warning: 'yellow', error: 'red' };

/** What the terminal view draws: the last report, or why there is none, and a line about refreshing. */
interface ViewState {
  readonly report: HealthReport | undefined;
  readonly problem: string | undefined;
  readonly footer: string;
}

/**
 * Draws the health report on a terminal with ink: a colored mark per section, the figures its
 * check measured, findings with their codes below, dismissed sections greyed. With `watchMs` it
 * asks again and redraws on that interval until SIGINT. ink and react are imported here, and only
 * here, so no other command pays for loading them. Resolves with the exit status of the last
 * report (2 when the deployment could not be reached).
 */
export async function drawHealthReport(
  io: CliIo,
  fetchReport: () => Promise<HealthReport>,
  options: { readonly watchMs?: number | undefined; readonly describeError: (error: unknown) => string },
): Promise<number> {
  const [{ render, Box, Text }, React] = await Promise.all([import('ink'), import('react')]);
  const h = React.createElement;

  const view = (state: ViewState) => {
    const children = [];
    if (state.report) {
      const report = state.report;
      children.push(h(Text, { key: 'headline', bold: true, color: COLORS[report.severity] }, healthHeadline(report)));
      for (const section of healthSectionLines(report)) {
        const color = section.dismissed ? 'gray' : COLORS[section.severity];
        children.push(
          h(
            Box,
            { key: section.title, flexDirection: 'column' },
            h(
              Text,
              null,
              h(Text, { color }, `${MARKS[section.severity]} `),
              h(Text, { bold: !section.dismissed, dimColor: section.dismissed }, section.title.padEnd(20)),
              h(Text, { dimColor: section.dismissed }, section.figures),
              section.dismissed ? h(Text, { color: 'gray' }, ' (dismissed)') : null,
            ),
            ...section.findings.map((finding, index) =>
              h(Text, { key: String(index), dimColor: section.dismissed }, '    ', h(Text, { color }, finding.code), ` ${finding.message}`),
            ),
          ),
        );
      }
    }
    if (state.problem) children.push(h(Text, { key: 'problem', color: 'red' }, state.problem));
    if (state.footer) children.push(h(Text, { key: 'footer', dimColor: true }, state.footer));
    return h(Box, { flexDirection: 'column' }, ...children);
  };

  let code = 0;
  let state: ViewState = { report: undefined, problem: undefined, footer: '' };
  const refresh = async (): Promise<void> => {
    try {
      const report = await fetchReport();
      code = healthExitCode(report);
      state = { ...state, report, problem: undefined };
    } catch (error) {
      code = 2;
      state = { ...state, problem: options.describeError(error) };
    }
  };

  await refresh();
  const every = `every ${(options.watchMs ?? 0) / 1000}s`;
  let draws = 1;
  const footer = () => `Refreshed ${new Date().toLocaleTimeString()} (${draws}), again ${every}; Ctrl-C stops.`;
  if (options.watchMs !== undefined) state = { ...state, footer: footer() };
  const instance = render(view(state), {
    stdout: io.stdout as NodeJS.WriteStream,
    stderr: io.stderr as NodeJS.WriteStream,
    stdin: io.stdin as NodeJS.ReadStream,
    patchConsole: false,
    exitOnCtrlC: false,
  });
  if (options.watchMs !== undefined) {
    await new Promise<void>((resolve) => {
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;
      const tick = async (): Promise<void> => {
        await refresh();
        if (stopped) return;
        draws++;
        state = { ...state, footer: footer() };
        instance.rerender(view(state));
        timer = setTimeout(() => void tick(), options.watchMs);
      };
      timer = setTimeout(() => void tick(), options.watchMs);
      process.once('SIGINT', () => {
        stopped = true;
        clearTimeout(timer);
        resolve();
      });
    });
  }
  instance.unmount();
  await instance.waitUntilExit();
  return code;
}
