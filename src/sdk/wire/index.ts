export * from './api-keys.js';
export * from './common.js';
export * from './general.js';
export * from './users.js';
export * from './organizations.js';
export * from './provisioner-protocol.js';
export * from './files.js';
