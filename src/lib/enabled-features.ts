/**
 * The licensed features in effect on this daemon, as the entitlements were last computed. One per
 * daemon, read wherever a feature gates behaviour; replaced whole on each computation.
 */
export class EnabledFeatures {
  #names: ReadonlySet<string> = new Set();

  has(name: string): boolean {
    return this.#names.has(name);
  }

  replace(names: Iterable<string>): void {
    this.#names = new Set(names);
  }
}
