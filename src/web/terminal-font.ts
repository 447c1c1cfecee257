// The terminal's font: the user's `terminal_font` (`GET /users/me/appearance`), with a monospace
// stack behind it, for a browser that has not got the chosen font installed.

/** The system monospace fonts, the terminal's default and every font's fallback. */
export const MONOSPACE_STACK = 'ui-monospace, "SF Mono", Menlo, Consolas, "DejaVu Sans Mono", monospace';

/** The families of the fonts a user can choose, by the API's names. */
const FAMILIES: Readonly<Record<string, string>> = {
  'ibm-plex-mono': '"IBM Plex Mono"',
  'fira-code': '"Fira Code"',
  'source-code-pro': '"Source Code Pro"',
  'jetbrains-mono': '"JetBrains Mono"',
};

/** The CSS font-family for a `terminal_font`: the chosen font, then the monospace stack. */
export function terminalFontFamily(font: string): string {
  const family = Object.hasOwn(FAMILIES, font) ? FAMILIES[font] : undefined;
  return family === undefined ? MONOSPACE_STACK : `${family}, ${MONOSPACE_STACK}`;
}
