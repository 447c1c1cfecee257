/** Why an archive was refused; stable codes the API can map to answers. */
export type ArchiveErrorReason =
  | 'path_escape'
  | 'link_escape'
  | 'special_file'
  | 'duplicate_entry'
  | 'too_large'
  | 'too_many_entries'
  | 'compression_ratio'
  | 'corrupt'
  | 'unsupported';

/**
 * An archive, or one entry of it, that is unsafe, too big or unreadable.
 * The message names the entry so an uploader can find and fix it.
 */
export class ArchiveError extends Error {
  readonly reason: ArchiveErrorReason;
  readonly entry: string | undefined;

  /** `problem` completes the sentence, e.g. `escapes the archive root`. */
  constructor(reason: ArchiveErrorReason, entry: string | undefined, problem: string) {
    // JSON quoting keeps control characters in hostile names out of logs.
    super(entry === undefined ? `archive ${problem}` : `archive entry ${JSON.stringify(entry)} ${problem}`);
    this.name = 'ArchiveError';
    this.reason = reason;
    this.entry = entry;
  }
}
