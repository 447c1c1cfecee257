/** The last `capacity` bytes of a terminal's output, replayed to a client that attaches. */
export class ReplayBuffer {
  readonly #capacity: number;
  #chunks: Buffer[] = [];
  #size = 0;

  constructor(capacity: number) {
    this.#capacity = capacity;
  }

  push(chunk: Buffer): void {
    this.#chunks.push(chunk);
    this.#size += chunk.length;
    while (this.#size > this.#capacity) {
      const first = this.#chunks[0];
      if (!first) break;
      const excess = this.#size - this.#capacity;
      if (first.length <= excess) {
        this.#chunks.shift();
        this.#size -= first.length;
      } else {
        this.#chunks[0] = first.subarray(excess);
        this.#size -= excess;
      }
    }
  }

  contents(): Buffer {
    return Buffer.concat(this.#chunks, this.#size);
  }
}
