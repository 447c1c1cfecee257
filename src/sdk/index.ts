export { ApiError } from './api-error.js';
export { CoveClient, SESSION_TOKEN_HEADER, type ClientOptions } from './client.js';
export type * from './wire/index.js';
