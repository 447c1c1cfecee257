/**
 * Splits a stream of concatenated JSON objects (`{"data":"a"}{"data":"b"}`), as terminal clients
 * may send several in one message or one across several. Text outside objects is dropped.
 */
export class JsonObjectSplitter {
  #pending = '';
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** Where the object being read starts in `#pending`, or -1 between objects. */
  #start = -1;
  /** How far `#pending` has been scanned. */
  #scanned = 0;

  /** Adds text; returns the objects it completed, parsed (an object that does not parse is skipped). */
  push(text: string): unknown[] {
    this.#pending += text;
    const values: unknown[] = [];
    for (let i = this.#scanned; i < this.#pending.length; i++) {
      const char = this.#pending[i];
      if (this.#start < 0) {
        if (char === '{') {
          this.#start = i;
          this.#depth = 1;
        }
        continue;
      }
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (char === '\\') this.#escaped = true;
        else if (char === '"') this.#inString = false;
        continue;
      }
      if (char === '"') this.#inString = true;
      else if (char === '{') this.#depth += 1;
      else if (char === '}' && --this.#depth === 0) {
        try {
          values.push(JSON.parse(this.#pending.slice(this.#start, i + 1)));
        } catch {
          // Not JSON after all; the next object starts fresh.
        }
        this.#start = -1;
      }
    }
    const keepFrom = this.#start < 0 ? this.#pending.length : this.#start;
    this.#pending = this.#pending.slice(keepFrom);
    this.#scanned = this.#pending.length;
    if (this.#start >= 0) this.#start = 0;
    return values;
  }
}
