export { ApiError } from './api-error.js';
export { DeploymentUnreachableError } from './http-transport.js';
export { CoveClient, SESSION_TOKEN_HEADER, type ClientOptions } from './client.js';
export type * from './wire/index.js';
