/** Eighths of a character cell, for bars finer than one cell. */
const PARTIAL_BLOCKS = ['', '▏', '▎', '▍', '▌', '▋', '▊', '▉'];
const FULL_BLOCK = '█';

/** One bar: what it is, its length, and what to print after it. */
export interface Bar {
  readonly label: string;
  readonly value: number;
  readonly caption: string;
}

/**
 * Horizontal bars of Unicode block characters, scaled so the longest fills `width` cells, in
 * eighths of a cell. Labels are aligned; a zero is an empty bar, not a missing row.
 */
export function renderBars(bars: readonly Bar[], width = 40, color = false): string[] {
  const labelWidth = Math.max(0, ...bars.map((bar) => bar.label.length));
  const max = Math.max(0, ...bars.map((bar) => bar.value));
  return bars.map((bar) => {
    const eighths = max > 0 ? Math.round((Math.max(0, bar.value) / max) * width * 8) : 0;
    const blocks = FULL_BLOCK.repeat(Math.floor(eighths / 8)) + (PARTIAL_BLOCKS[eighths % 8] ?? '');
    const painted = color && blocks !== '' ? `\u001b[36m${blocks}\u001b[0m` : blocks;
    return `${bar.label.padEnd(labelWidth)}  ${painted}${' '.repeat(Math.max(0, width - Math.ceil(eighths / 8)))}  ${bar.caption}`;
  });
}
