import { CliError } from './cli-error.js';
import type { CliIo } from './io.js';

/** How a command prints data: a table for people, JSON for scripts. */
export type OutputFormat = 'table' | 'json';

/** Prints a value as indented JSON. */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A column of a table: its heading and how to read a row's cell. */
export interface Column<T> {
  readonly heading: string;
  readonly value: (row: T) => string;
  /** Shown only when asked for with `-c`. */
  readonly hidden?: boolean;
}

/**
 * The columns `-c/--column` asks for, in the order asked, or the ones shown by default. Names are
 * the headings, in any case; an unknown one is an error that lists the valid ones.
 */
export function chooseColumns<T>(columns: readonly Column<T>[], selection: readonly string[] | undefined): readonly Column<T>[] {
  if (selection === undefined) return columns.filter((column) => column.hidden !== true);
  return selection.map((name) => {
    const found = columns.find((column) => column.heading === name.toLowerCase());
    if (!found)
      throw unknownColumn(
        name,
        columns.map((column) => column.heading),
      );
    return found;
  });
}

/** Reads `-c a,b -c "last seen"`: names separated by commas, trimmed. */
export function parseColumnSelection(given: unknown): readonly string[] | undefined {
  if (given === undefined) return undefined;
  const texts = Array.isArray(given) ? given.map(String) : [String(given)];
  const names = texts.flatMap((text) => text.split(',')).map((name) => name.trim().toLowerCase());
  return names.filter((name) => name !== '');
}

export function unknownColumn(name: string, valid: readonly string[]): CliError {
  return new CliError(`Unknown column "${name}".`, { hint: `Valid columns: ${valid.join(', ')}.` });
}

/** Prints rows as an aligned table with upper-case headings, every column given (see chooseColumns). */
export function printTable<T>(io: CliIo, rows: readonly T[], columns: readonly Column<T>[]): void {
  const cells = rows.map((row) => columns.map((column) => column.value(row)));
  const widths = columns.map((column, i) => Math.max(column.heading.length, ...cells.map((line) => (line[i] ?? '').length)));
  const format = (line: readonly string[]) =>
    line
      .map((cell, i) => cell.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  io.stdout.write(`${format(columns.map((column) => column.heading.toUpperCase()))}\n`);
  for (const line of cells) io.stdout.write(`${format(line)}\n`);
}

/** Prints data as JSON or as the table, whichever the user asked for. */
export function printData<T>(io: CliIo, format: OutputFormat, data: readonly T[], columns: readonly Column<T>[]): void {
  if (format === 'json') printJson(io, data);
  else printTable(io, data, columns);
}

/** A timestamp as people read it, or "never". */
export function humanTime(iso: string | undefined): string {
  if (!iso || iso.startsWith('0001-')) return 'never';
  return iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');
}
