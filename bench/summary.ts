// The figures each benchmark measured against its target, gathered so that the end of
// `npm run bench` shows in one table where the project stands.

/** One measured figure. `ok` is undefined for a figure without a target (shown for information). */
export interface Figure {
  readonly name: string;
  readonly value: string;
  readonly target: string;
  readonly ok: boolean | undefined;
}

const figures: Figure[] = [];

/** Remembers a figure for the summary. */
export function recordFigure(figure: Figure): void {
  figures.push(figure);
}

/** Prints every recorded figure with its target and verdict; nothing when none was recorded. */
export function printSummary(): void {
  if (figures.length === 0) return;
  const rows = figures.map((f) => [f.name, f.value, f.target, f.ok === undefined ? '-' : f.ok ? 'ok' : 'MISSED']);
  const header = ['figure', 'value', 'target', 'verdict'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => (row[i] ?? '').length)));
  const line = (cells: readonly string[]) => cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join('  ');
  console.log(
    `\nsummary: ${figures.filter((f) => f.ok === false).length} of ${figures.filter((f) => f.ok !== undefined).length} figures miss their target`,
  );
  console.log(line(header));
  for (const row of rows) console.log(line(row));
}
