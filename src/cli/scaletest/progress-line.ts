/** How often the line is redrawn on a terminal, and printed anew elsewhere. */
const TTY_EVERY_MS = 250;
const PLAIN_EVERY_MS = 5000;

/**
 * A live progress line on stderr: redrawn in place on a terminal, printed as plain lines every
 * few seconds otherwise (CI logs), and silent when `quiet`.
 */
export class ProgressLine {
  readonly #stream: NodeJS.WritableStream & { readonly isTTY?: boolean };
  readonly #render: () => string;
  #timer: NodeJS.Timeout | undefined;
  #width = 0;

  constructor(stream: NodeJS.WritableStream, render: () => string, quiet = false) {
    this.#stream = stream as NodeJS.WritableStream & { readonly isTTY?: boolean };
    this.#render = render;
    if (quiet) return;
    const tty = this.#stream.isTTY === true;
    this.#timer = setInterval(() => this.#draw(tty), tty ? TTY_EVERY_MS : PLAIN_EVERY_MS);
    this.#timer.unref();
  }

  #draw(tty: boolean): void {
    const text = this.#render();
    if (!tty) {
      this.#stream.write(`${text}\n`);
      return;
    }
    this.#stream.write(`\r${text.padEnd(this.#width)}`);
    this.#width = text.length;
  }

  /** Stops redrawing, and leaves the terminal's cursor on a fresh line. */
  stop(): void {
    if (!this.#timer) return;
    clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.#width > 0) this.#stream.write(`\r${' '.repeat(this.#width)}\r`);
  }
}
