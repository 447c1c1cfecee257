import { SYSTEM_SUBJECT_ID, type Role, type Subject } from '../../src/rbac/index.js';

const WILDCARD_ROLE: Role = Object.freeze({
  name: 'system',
  display_name: 'System',
  organization_id: '',
  site: Object.freeze([Object.freeze({ negate: false, resource_type: '*', action: '*' } as const)]),
  org: Object.freeze([]),
  user: Object.freeze([]),
});

/**
 * A system-typed subject holding `*` on every resource, for tests of the policy itself (what a
 * wildcard grants). Test-only: the daemon's system actors are the minimal subjects of
 * src/rbac/system-subjects.ts.
 */
export function systemSubject(name: string): Subject {
  return Object.freeze({ id: SYSTEM_SUBJECT_ID, type: 'system', name, roles: [WILDCARD_ROLE], groups: [], scope: 'all' });
}
