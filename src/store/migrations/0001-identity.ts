import { sql, type Kysely } from 'kysely';
import type { Migration } from './migration.js';

/** Organizations, users, memberships, API keys, custom roles and the site settings table. */
export const identityMigration: Migration = {
  version: 1,
  name: 'identity',
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('site_config')
      .addColumn('key', 'text', (c) => c.primaryKey())
      .addColumn('value', 'text', (c) => c.notNull())
      .execute();

    await db.schema
      .createTable('organizations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('display_name', 'text', (c) => c.notNull())
      .addColumn('description', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('icon', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('is_default', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('organizations_name_unique')
      .on('organizations')
      .expression(sql`lower(name)`)
      .unique()
      .execute();
    // At most one default organization, even when replicas start together.
    await db.schema
      .createIndex('organizations_default_unique')
      .on('organizations')
      .column('is_default')
      .unique()
      .where(sql.ref('is_default'), '=', 1)
      .execute();

    await db.schema
      .createTable('users')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('username', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('avatar_url', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('hashed_password', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('login_type', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('rbac_roles', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('theme_preference', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('hashed_one_time_passcode', 'text')
      .addColumn('one_time_passcode_expires_at', 'text')
      .addColumn('deleted', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addColumn('last_seen_at', 'text', (c) => c.notNull())
      .execute();
    // Deleted users keep their rows; only live ones hold on to a username or an email.
    await db.schema
      .createIndex('users_username_unique')
      .on('users')
      .expression(sql`lower(username)`)
      .unique()
      .where(sql.ref('deleted'), '=', 0)
      .execute();
    await db.schema
      .createIndex('users_email_unique')
      .on('users')
      .expression(sql`lower(email)`)
      .unique()
      .where(sql.ref('deleted'), '=', 0)
      .execute();

    await db.schema
      .createTable('organization_members')
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('roles', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('organization_members_pk', ['user_id', 'organization_id'])
      .execute();
    await db.schema.createIndex('organization_members_org').on('organization_members').column('organization_id').execute();

    await db.schema
      .createTable('api_keys')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('hashed_secret', 'text', (c) => c.notNull())
      .addColumn('user_id', 'text', (c) => c.notNull().references('users.id').onDelete('cascade'))
      .addColumn('login_type', 'text', (c) => c.notNull())
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('token_name', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('lifetime_seconds', 'bigint', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('last_used', 'text', (c) => c.notNull())
      .addColumn('ip_address', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('api_keys_user').on('api_keys').column('user_id').execute();
    // Named tokens are unique per user; sessions all carry an empty name.
    await db.schema
      .createIndex('api_keys_token_name_unique')
      .on('api_keys')
      .columns(['user_id', 'token_name'])
      .unique()
      .where(sql.ref('login_type'), '=', 'token')
      .execute();

    await db.schema
      .createTable('custom_roles')
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('organization_id', 'text', (c) => c.notNull().references('organizations.id').onDelete('cascade'))
      .addColumn('display_name', 'text', (c) => c.notNull().defaultTo(''))
      .addColumn('site_permissions', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('org_permissions', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('user_permissions', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('custom_roles_pk', ['name', 'organization_id'])
      .execute();
  },
};
