export { ArchiveError, type ArchiveErrorReason } from './archive-error.js';
export { defaultArchiveLimits, type ArchiveLimits } from './archive-limits.js';
export { createTar, writeTar, type TarFileInput } from './create-tar.js';
export { extractTar } from './extract-tar.js';
export { inspectTar, readTar, type ArchiveEntry, type ArchiveEntryType, type TarMember } from './inspect-tar.js';
export { tarToZip } from './tar-to-zip.js';
export { zipToTar } from './zip-to-tar.js';
