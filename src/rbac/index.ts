/**
 * Cove's role-based access control: the policy vocabulary, built-in roles, subjects and objects,
 * the `authorize` decision with its SQL list filter, role assignment rules and custom role checks.
 * Pure code: imports nothing else of the project and no packages.
 */
export * from './policy.js';
export * from './role.js';
export * from './builtin-roles.js';
export * from './subject.js';
export * from './object.js';
export * from './authorize.js';
export * from './assign.js';
export * from './custom-role-rules.js';
export * from './system-subjects.js';
