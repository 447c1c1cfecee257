import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/**
 * Groups, workspace sharing and the claims behind group sync. Every organization gets its
 * "Everyone" group as a real row whose id is the organization's id (as the reference does), so
 * that its quota allowance is stored like any other group's while its members stay implicit: the
 * organization's members. Workspaces gain the same user and group ACL columns as templates.
 */
export const groupsAndSharingMigration: Migration = {
  version: 22,
  name: 'groups-and-sharing',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('groups')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('avatar_url', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('quota_allowance', 'integer', (c) => c.notNull().defaultTo(0))
      // `user` for groups made by hand, `oidc` for groups made by group sync.
      .addColumn('source', 'text', (c) => c.notNull().defaultTo('user'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('groups_organization_name_unique').on('groups').columns(['organization_id', 'name']).unique().execute();

    await db.schema
      .createTable('group_members')
      .addColumn('group_id', 'text', (c) => c.notNull().references('groups.id').onDelete('cascade'))
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addPrimaryKeyConstraint('group_members_pkey', ['group_id', 'user_id'])
      .execute();
    await db.schema.createIndex('group_members_user_id').on('group_members').column('user_id').execute();

    await sql`INSERT INTO groups (id, organization_id, name, display_name, avatar_url, quota_allowance, source, created_at)
      SELECT id, id, 'Everyone', '', '', 0, 'user', created_at FROM organizations`.execute(db);

    await db.schema
      .alterTable('workspaces')
      .addColumn('user_acl', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
    await db.schema
      .alterTable('workspaces')
      .addColumn('group_acl', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
    await db.schema
      .alterTable('organizations')
      .addColumn('workspace_sharing_disabled', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    // The claims of the user's last OIDC sign-in (ID token and user info merged), for the group sync preview.
    await db.schema
      .alterTable('user_links')
      .addColumn('claims', 'text', (c) => c.notNull().defaultTo('{}'))
      .execute();
  },
};
