/** Bounds that keep a hostile archive from exhausting memory, disk or time. */
export interface ArchiveLimits {
  /** Sum of the uncompressed sizes of all files. */
  readonly maxTotalBytes: number;
  /** Number of entries, directories and links included. */
  readonly maxEntries: number;
  /** Largest uncompressed/compressed size ratio accepted for one compressed zip entry. */
  readonly maxCompressionRatio: number;
}

/**
 * Generous for template sources, small enough to refuse bombs. Deflate tops out near 1032:1,
 * so a ratio of 100 only refuses files that are almost entirely one repeated byte.
 */
export const defaultArchiveLimits: ArchiveLimits = Object.freeze({
  maxTotalBytes: 1024 ** 3,
  maxEntries: 10_000,
  maxCompressionRatio: 100,
});
