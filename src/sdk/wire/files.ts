import { Type, type Static } from '@sinclair/typebox';
import { Uuid } from './common.js';

/** The answer to an upload. `hash` holds the file's id, as the reference names it. */
export const UploadResponse = Type.Object({ hash: Uuid });
export type UploadResponse = Static<typeof UploadResponse>;
