import type { Expression, ExpressionBuilder, SqlBool } from 'kysely';
import type { ListFilter } from '../rbac/index.js';

/**
 * The SQL form of an RBAC list filter: a row passes when the subject may act on every row of the
 * type, on rows of one of its organizations, or on rows it owns where user-level grants apply.
 * `orgColumn` or `ownerColumn` may be null for types that have no such column.
 */
export function allowedRows<DB, TB extends keyof DB>(
  eb: ExpressionBuilder<DB, TB>,
  filter: ListFilter,
  columns: { readonly org: string | null; readonly owner: string | null },
): Expression<SqlBool> {
  if (filter.all) return eb.lit(true);
  // Column names come from the store's own call sites; kysely cannot type a column chosen at run time.
  const ref = (column: string) => eb.ref(column as never) as unknown as Expression<string | null>;
  const list = (values: readonly string[]) => values.map((v) => eb.val(v));
  const alternatives: Expression<SqlBool>[] = [];
  if (columns.org && filter.orgIds.length > 0) alternatives.push(eb(ref(columns.org), 'in', list(filter.orgIds)));
  if (columns.owner && filter.ownerId) {
    const scope: Expression<SqlBool>[] = [];
    if (columns.org && filter.ownerOrgIds.length > 0) scope.push(eb(ref(columns.org), 'in', list(filter.ownerOrgIds)));
    if (filter.ownerNoOrg) scope.push(columns.org ? eb(ref(columns.org), 'is', null) : eb.lit(true));
    if (scope.length > 0) alternatives.push(eb.and([eb(ref(columns.owner), '=', eb.val(filter.ownerId)), eb.or(scope)]));
  }
  return alternatives.length === 0 ? eb.lit(false) : eb.or(alternatives);
}
