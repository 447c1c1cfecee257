import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createTar } from '../../src/lib/archive/index.js';
import { newId } from '../../src/lib/random.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Template } from '../../src/sdk/wire/index.js';
import { templateRow } from '../helpers/template-row.js';
import { createMember, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

/**
 * Template lists filter, authorize (ACLs included) and page in the database. Templates are
 * inserted as rows so each case controls its ACLs exactly; every read goes through the API.
 */
describe('template lists', () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let member: CoveClient;
  let other: CoveClient;
  let ownerId: string;
  let memberId: string;
  let orgId: string;
  let versionId: string;

  const insert = async (name: string, acl: { user?: Record<string, string[]>; group?: Record<string, string[]> }, extra = {}) => {
    const now = test.clock.now().toISOString();
    await test.daemon.store.db
      .insertInto('templates')
      .values(
        templateRow(
          { id: newId(), organization_id: orgId, name, active_version_id: versionId, created_by: ownerId, created_at: now },
          {
            display_name: `Display ${name}`,
            user_acl: JSON.stringify(acl.user ?? {}),
            group_acl: JSON.stringify(acl.group ?? {}),
            ...extra,
          },
        ),
      )
      .execute();
  };
  const names = (templates: readonly Template[]) => templates.map((template) => template.name);
  const page = (client: CoveClient, query: Record<string, string>) => client.request<Template[]>('GET', '/templates', { query });

  before(async () => {
    test = await startTestDaemon();
    owner = await createOwner(test);
    member = await createMember(test, 'member');
    other = await createMember(test, 'other');
    ownerId = (await owner.user('me')).id;
    memberId = (await member.user('me')).id;
    orgId = test.daemon.identity.defaultOrganization.id;
    const now = test.clock.now().toISOString();
    const file = await owner.uploadFile(await createTar({ 'echo.json': '{}' }));
    const jobId = newId();
    versionId = newId();
    const db = test.daemon.store.db;
    await db
      .insertInto('provisioner_jobs')
      .values({
        id: jobId,
        organization_id: orgId,
        type: 'template_version_import',
        provisioner: 'echo',
        storage_method: 'file',
        file_id: file.id,
        initiator_id: ownerId,
        input: JSON.stringify({ template_version_id: versionId }),
        tags: '{}',
        created_at: now,
        updated_at: now,
        started_at: now,
        completed_at: now,
        canceled_at: null,
        error: '',
        error_code: '',
        worker_id: null,
      })
      .execute();
    await db
      .insertInto('template_versions')
      .values({
        id: versionId,
        template_id: null,
        organization_id: orgId,
        name: 'v1',
        message: '',
        readme: '',
        job_id: jobId,
        created_by: ownerId,
        created_at: now,
        updated_at: now,
        archived: 0,
        variables: '[]',
        parameters: '[]',
        presets: '[]',
        external_auth: '[]',
      })
      .execute();
    const everyone = { group: { [orgId]: ['read', 'use'] } };
    for (const name of ['page-a', 'page-b', 'page-c', 'page-d', 'page-e']) await insert(name, everyone);
    await insert('acl-user', { user: { [memberId]: ['read'] } });
    await insert('acl-user-use-only', { user: { [memberId]: ['use'] } });
    await insert('acl-group', { group: { [newId()]: ['read'] } });
    await insert('acl-nobody', {});
    await insert('acl-wildcard', { user: { [memberId]: ['*'] } });
    await insert('old-one', everyone, { deprecation_message: 'use page-a' });
  });
  after(async () => test.close());

  it('pages the visible templates by name with limit and offset', async () => {
    assert.deepEqual(names(await page(member, { q: 'page', limit: '2', offset: '1' })), ['page-b', 'page-c']);
    assert.deepEqual(names(await page(member, { q: 'page', offset: '3' })), ['page-d', 'page-e']);
    assert.deepEqual(names(await page(member, { q: 'page', limit: '10', offset: '5' })), []);
  });

  it('lets a user see a template through its user ACL or the Everyone group, and nothing else', async () => {
    assert.deepEqual(names(await page(member, { q: 'acl' })), ['acl-user', 'acl-wildcard']);
    assert.deepEqual(names(await page(other, { q: 'acl' })), []);
    assert.deepEqual(names(await page(owner, { q: 'acl' })), ['acl-group', 'acl-nobody', 'acl-user', 'acl-user-use-only', 'acl-wildcard']);
    assert.deepEqual(names(await page(other, { q: 'page', limit: '1' })), ['page-a']);
  });

  it('filters by name, exact name, author and deprecation before paging', async () => {
    assert.deepEqual(names(await page(member, { q: 'exact_name:page-c' })), ['page-c']);
    assert.deepEqual(names(await page(member, { q: 'display page-d' })), ['page-d']);
    assert.deepEqual(names(await page(member, { q: 'deprecated:true' })), ['old-one']);
    assert.deepEqual(names(await page(member, { q: 'author:member page' })), []);
    assert.deepEqual(names(await page(owner, { q: 'author:me page', limit: '1' })), ['page-a']);
    assert.deepEqual(names(await page(member, { q: 'page_' })), []);
  });

  it('answers a page with its organization and creator', async () => {
    const [first] = await page(member, { q: 'page', limit: '1' });
    assert.equal(first?.organization_id, orgId);
    assert.equal(first?.created_by_name, 'owner');
    assert.equal(first?.active_user_count, 0);
    assert.deepEqual(first?.build_time_stats.start, { P50: null, P95: null });
  });
});
