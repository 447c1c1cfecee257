import { sql, type RawBuilder, type Selectable } from 'kysely';
import type {
  FileTable,
  OrganizationTable,
  ProvisionerJobTable,
  TemplateTable,
  TemplateVersionTable,
  WorkspaceBuildTable,
  WorkspaceTable,
} from './schema.js';

/**
 * Several whole rows of different tables read by one statement. `select b.*, w.*` cannot tell the
 * tables' same-named columns (id, created_at, ...) apart, so each table's columns are selected
 * under its alias (`"b"."id" as "b__id"`) and split back into rows after the read. On PostgreSQL
 * that is one statement where separate reads would be one each: each costs a round trip and CPU
 * on both sides, whatever the rows.
 */
export class JoinedTable<Table> {
  /** The select-list fragment, made once: the statement is compiled per read, its columns are not. */
  readonly columns: RawBuilder<unknown>;
  readonly #names: readonly (keyof Table & string)[];

  /**
   * `present` names every column of the table; the mapped type makes a column added to the table
   * a compile error here until it is listed.
   */
  constructor(
    readonly alias: string,
    present: { readonly [Column in keyof Table & string]: true },
  ) {
    this.#names = Object.keys(present) as (keyof Table & string)[];
    this.columns = sql.raw(this.#names.map((name) => `"${alias}"."${name}" as "${alias}__${name}"`).join(', '));
  }

  /** This table's row out of a joined one; undefined where an outer join found none (its first column, the key, is null). */
  take(joined: Readonly<Record<string, unknown>>): Selectable<Table> | undefined {
    const [key] = this.#names;
    if (key === undefined || joined[`${this.alias}__${key}`] == null) return undefined;
    const row: Record<string, unknown> = {};
    for (const name of this.#names) row[name] = joined[`${this.alias}__${name}`];
    return row as Selectable<Table>;
  }
}

const job: { readonly [Column in keyof ProvisionerJobTable]: true } = {
  id: true,
  organization_id: true,
  type: true,
  provisioner: true,
  storage_method: true,
  file_id: true,
  initiator_id: true,
  input: true,
  tags: true,
  created_at: true,
  updated_at: true,
  started_at: true,
  completed_at: true,
  canceled_at: true,
  error: true,
  error_code: true,
  worker_id: true,
};

const build: { readonly [Column in keyof WorkspaceBuildTable]: true } = {
  id: true,
  workspace_id: true,
  template_version_id: true,
  build_number: true,
  transition: true,
  initiator_id: true,
  job_id: true,
  reason: true,
  provisioner_state: true,
  deadline: true,
  max_deadline: true,
  daily_cost: true,
  rich_parameter_values: true,
  template_version_preset_id: true,
  created_at: true,
  updated_at: true,
};

const workspace: { readonly [Column in keyof WorkspaceTable]: true } = {
  id: true,
  organization_id: true,
  owner_id: true,
  template_id: true,
  name: true,
  created_at: true,
  updated_at: true,
  deleted: true,
  autostart_schedule: true,
  ttl_ms: true,
  last_used_at: true,
  dormant_at: true,
  deleting_at: true,
  automatic_updates: true,
  favorite: true,
  latest_build_status: true,
  user_acl: true,
  group_acl: true,
};

const template: { readonly [Column in keyof TemplateTable]: true } = {
  id: true,
  organization_id: true,
  name: true,
  display_name: true,
  description: true,
  icon: true,
  provisioner: true,
  active_version_id: true,
  created_by: true,
  created_at: true,
  updated_at: true,
  deleted: true,
  default_ttl_ms: true,
  activity_bump_ms: true,
  autostop_requirement_days: true,
  autostop_requirement_weeks: true,
  autostart_requirement_days: true,
  allow_user_autostart: true,
  allow_user_autostop: true,
  allow_user_cancel_workspace_jobs: true,
  failure_ttl_ms: true,
  time_til_dormant_ms: true,
  time_til_dormant_autodelete_ms: true,
  require_active_version: true,
  deprecation_message: true,
  max_port_share_level: true,
  use_classic_parameter_flow: true,
  user_acl: true,
  group_acl: true,
};

const version: { readonly [Column in keyof TemplateVersionTable]: true } = {
  id: true,
  template_id: true,
  organization_id: true,
  name: true,
  message: true,
  readme: true,
  job_id: true,
  created_by: true,
  created_at: true,
  updated_at: true,
  archived: true,
  variables: true,
  parameters: true,
  presets: true,
  external_auth: true,
  declared_description: true,
  declared_icon: true,
};

const file: { readonly [Column in keyof FileTable]: true } = {
  id: true,
  hash: true,
  created_by: true,
  created_at: true,
  mimetype: true,
  size: true,
  data: true,
};

const organization: { readonly [Column in keyof OrganizationTable]: true } = {
  id: true,
  name: true,
  display_name: true,
  description: true,
  icon: true,
  is_default: true,
  created_at: true,
  updated_at: true,
  workspace_sharing_disabled: true,
};

/** The tables read joined, each under the alias its statements give it. */
export const joined = {
  job: new JoinedTable<ProvisionerJobTable>('j', job),
  build: new JoinedTable<WorkspaceBuildTable>('b', build),
  workspace: new JoinedTable<WorkspaceTable>('w', workspace),
  template: new JoinedTable<TemplateTable>('t', template),
  version: new JoinedTable<TemplateVersionTable>('v', version),
  file: new JoinedTable<FileTable>('f', file),
  organization: new JoinedTable<OrganizationTable>('o', organization),
};
