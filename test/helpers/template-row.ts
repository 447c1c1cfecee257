import type { TemplateRow } from '../../src/store/rows.js';

/** What a fixture template must say of itself; every other column gets a new template's setting. */
export type TemplateRowIdentity = Pick<TemplateRow, 'id' | 'organization_id' | 'name' | 'active_version_id' | 'created_by' | 'created_at'>;

/**
 * A template row as a new template is stored, for tests and benchmarks that write rows directly:
 * everyone in its organization may read and use it, and no schedule setting is on.
 */
export function templateRow(identity: TemplateRowIdentity, overrides: Partial<TemplateRow> = {}): TemplateRow {
  return {
    display_name: '',
    description: '',
    icon: '',
    provisioner: 'echo',
    updated_at: identity.created_at,
    deleted: 0,
    default_ttl_ms: 0,
    activity_bump_ms: 0,
    autostop_requirement_days: 0,
    autostop_requirement_weeks: 1,
    autostart_requirement_days: 127,
    allow_user_autostart: 1,
    allow_user_autostop: 1,
    allow_user_cancel_workspace_jobs: 0,
    failure_ttl_ms: 0,
    time_til_dormant_ms: 0,
    time_til_dormant_autodelete_ms: 0,
    require_active_version: 0,
    deprecation_message: '',
    max_port_share_level: 'public',
    use_classic_parameter_flow: 0,
    user_acl: '{}',
    group_acl: JSON.stringify({ [identity.organization_id]: ['read', 'use'] }),
    ...identity,
    ...overrides,
  };
}
