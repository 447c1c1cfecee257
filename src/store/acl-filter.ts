import { sql, type Expression, type RawBuilder, type SqlBool } from 'kysely';
import { scopeAllows, type Action, type ResourceType, type Subject } from '../rbac/index.js';
import type { DialectName } from './database.js';

/**
 * The SQL twin of the ACL path of `authorize()`: a row passes when its user ACL grants `action`
 * (or `*`) to the subject, or, for a member of the row's organization, its group ACL grants it to
 * the organization ("Everyone") or to one of the subject's groups. ACLs are JSON objects of id to
 * actions in text columns; SQLite and PostgreSQL read them with their own JSON functions.
 */
export function aclAllowedRows(
  dialect: DialectName,
  subject: Subject,
  action: Action,
  type: ResourceType,
  columns: { readonly org: string; readonly userAcl: string; readonly groupAcl: string },
): Expression<SqlBool> {
  if (!scopeAllows(subject.scope, action, type)) return sql<SqlBool>`1 = 0`;
  const org = sql.ref(columns.org);
  const alternatives: RawBuilder<SqlBool>[] = [];
  if (subject.id !== '') alternatives.push(grants(dialect, sql.ref(columns.userAcl), (key) => sql`${key} = ${subject.id}`, action));
  const memberOrgIds = [...new Set(subject.roles.map((role) => role.organization_id).filter((id) => id !== ''))];
  if (memberOrgIds.length > 0) {
    const groups = subject.groups.length > 0 ? sql` OR e.key IN (${sql.join(subject.groups)})` : sql``;
    const grant = grants(dialect, sql.ref(columns.groupAcl), (key) => sql`(${key} = ${org}${groups})`, action);
    alternatives.push(sql<SqlBool>`(${org} IN (${sql.join(memberOrgIds)}) AND ${grant})`);
  }
  return alternatives.length === 0 ? sql<SqlBool>`1 = 0` : sql<SqlBool>`(${sql.join(alternatives, sql` OR `)})`;
}

/** Whether the JSON object in `acl` has an entry whose key passes `keyMatches` and whose actions hold `action` or `*`. */
function grants(
  dialect: DialectName,
  acl: RawBuilder<unknown>,
  keyMatches: (key: RawBuilder<unknown>) => RawBuilder<unknown>,
  action: Action,
): RawBuilder<SqlBool> {
  const key = sql`e.key`;
  if (dialect === 'postgres') {
    return sql<SqlBool>`EXISTS (SELECT 1 FROM jsonb_each(CAST(${acl} AS jsonb)) AS e(key, value) WHERE ${keyMatches(key)}
      AND jsonb_typeof(e.value) = 'array'
      AND EXISTS (SELECT 1 FROM jsonb_array_elements_text(e.value) AS a(value) WHERE a.value IN (${action}, '*')))`;
  }
  return sql<SqlBool>`EXISTS (SELECT 1 FROM json_each(${acl}) AS e WHERE ${keyMatches(key)}
    AND e.type = 'array'
    AND EXISTS (SELECT 1 FROM json_each(e.value) AS a WHERE a.value IN (${action}, '*')))`;
}
