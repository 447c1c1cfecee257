import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { CoveClient } from '../../src/sdk/client.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { createMember, createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { seriousAxeViolations } from '../helpers/axe-check.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = join(ROOT, 'test-output/dashboard/admin-users');
/** Users made through the API before the browser opens: more than one page of the list (25). */
const SEEDED = 30;

// The users and organizations administration in a real Chromium against a daemon serving the
// checkout's built dashboard (`node scripts/build.mjs`). Every change made in the browser is read
// back through the API; a member who does not run the deployment sees neither the link nor the pages.
describe('the dashboard administers users and organizations', { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let browser: HeadlessChromium;
  let page: Page;
  const pageErrors: string[] = [];

  async function shot(name: string): Promise<void> {
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  }

  /** The users table's row of one user, found by their email. */
  function userRow(email: string) {
    return page.getByRole('table', { name: 'Users' }).getByRole('row').filter({ hasText: email });
  }

  async function searchUsers(query: string): Promise<void> {
    const search = page.getByRole('search', { name: 'Search users' });
    await search.getByRole('searchbox').fill(query);
    await search.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('q') === query);
  }

  before(async () => {
    assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
    test = await startTestDaemon();
    owner = await createOwner(test);
    await createMember(test, 'alice');
    await createMember(test, 'bob');
    const cove = await owner.organization('default');
    // Users without a password: no password hash to compute for each.
    for (let n = 0; n < SEEDED; n++) {
      const number = String(n).padStart(2, '0');
      await owner.createUser({
        username: `seed-${number}`,
        email: `seed-${number}@example.com`,
        login_type: 'none',
        organization_ids: [cove.id],
      });
    }
    await mkdir(SCREENSHOTS, { recursive: true });
    browser = await launchChromium({ width: 1280, height: 900 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
  });

  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it('creates a user, showing the server’s objection by its field first', async () => {
    await signInWithPassword(page, test.url, 'owner@example.com', STRONG_PASSWORD);
    await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deployment' }).click();
    await page.getByRole('navigation', { name: 'Deployment' }).getByRole('link', { name: 'Users' }).click();
    await page.waitForURL(`${test.url}/deployment/users`);
    await page.getByRole('link', { name: 'New user' }).click();
    await page.waitForURL(`${test.url}/deployment/users/new`);

    const form = page.getByRole('form', { name: 'New user' });
    await form.getByLabel('Username').fill('carol');
    await form.getByLabel('Email').fill('carol@example.com');
    await form.getByLabel('Full name').fill('Carol Example');
    await form.getByLabel('Password', { exact: true }).fill('short');
    await form.getByRole('button', { name: 'Create user' }).click();
    // The weak password is refused, and said so next to the password field.
    await form.locator('#password-problem').waitFor();
    assert.equal(await form.getByLabel('Password', { exact: true }).getAttribute('aria-invalid'), 'true');
    await shot('create-user-refused');
    await assert.rejects(owner.user('carol'));

    await form.getByLabel('Password', { exact: true }).fill(STRONG_PASSWORD);
    await form.getByRole('button', { name: 'Create user' }).click();
    await page.waitForURL(`${test.url}/deployment/users?q=carol`);
    await userRow('carol@example.com').waitFor();
    const carol = await owner.user('carol');
    assert.equal(carol.email, 'carol@example.com');
    assert.equal(carol.name, 'Carol Example');
    assert.equal(carol.login_type, 'password');
    assert.deepEqual(carol.organization_ids, [(await owner.organization('default')).id]);
    // The new user signs in with the password the form set.
    await test.anonymous.login('carol@example.com', STRONG_PASSWORD);
  });

  it('searches with words and filters, and pages through the server’s count', async () => {
    await searchUsers('seed-07');
    await userRow('seed-07@example.com').waitFor();
    assert.equal(await page.getByRole('table', { name: 'Users' }).locator('tbody tr').count(), 1);

    await page.getByLabel('Login type').selectOption('none');
    await page.waitForURL((url) => url.searchParams.get('q') === 'seed-07 login_type:none');
    await userRow('seed-07@example.com').waitFor();
    await searchUsers('login_type:none');
    const pager = page.getByRole('navigation', { name: 'User pages' });
    await pager.getByText('1–25 of 30').waitFor();
    assert.equal(await page.getByRole('table', { name: 'Users' }).locator('tbody tr').count(), 25);
    await shot('users-first-page');
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText('26–30 of 30').waitFor();
    assert.equal(await page.getByRole('table', { name: 'Users' }).locator('tbody tr').count(), 5);
    assert.equal(new URL(page.url()).searchParams.get('offset'), '25');
    // The server's answer for the same page holds the same users.
    const second = await owner.users({ q: 'login_type:none', limit: 25, offset: 25 });
    for (const user of second.users) await userRow(user.email).waitFor();

    // An unknown filter is the API's 400, shown with its reason.
    await searchUsers('colour:blue');
    await page.getByRole('alert').getByText('Invalid user search query.').waitFor();
  });

  it('changes a user’s site roles', async () => {
    await searchUsers('bob');
    await userRow('bob@example.com').getByRole('button', { name: 'Manage bob' }).click();
    const roles = page.getByRole('form', { name: 'Site roles of bob' });
    await roles.getByRole('checkbox', { name: 'Template Admin' }).check();
    await roles.getByRole('button', { name: 'Save roles' }).click();
    await roles.getByText('Roles saved.').waitFor();
    await userRow('bob@example.com').getByRole('cell', { name: 'Template Admin' }).waitFor();
    assert.deepEqual(
      (await owner.user('bob')).roles.map((role) => role.name),
      ['template-admin'],
    );
    await shot('user-manage');
    assert.deepEqual(await seriousAxeViolations(page), []);
  });

  it('suspends only after asking: Escape keeps the user active, confirming suspends them', async () => {
    const manage = page.getByRole('group', { name: 'Manage bob' });
    await manage.getByRole('button', { name: 'Suspend bob' }).click();
    const question = page.getByRole('group', { name: /^Suspend bob\?/ });
    await question.waitFor();
    await shot('suspend-question');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await page.keyboard.press('Escape');
    await question.waitFor({ state: 'detached' });
    assert.equal((await owner.user('bob')).status, 'active');

    await manage.getByRole('button', { name: 'Suspend bob' }).click();
    await question.getByRole('button', { name: 'Suspend', exact: true }).click();
    await manage.getByText('bob is suspended.').waitFor();
    await userRow('bob@example.com').locator('[data-status="suspended"]').waitFor();
    assert.equal((await owner.user('bob')).status, 'suspended');

    await manage.getByRole('button', { name: 'Activate bob' }).click();
    await page
      .getByRole('group', { name: /^Activate bob\?/ })
      .getByRole('button', { name: 'Activate', exact: true })
      .click();
    await manage.getByText('bob is active.').waitFor();
    assert.equal((await owner.user('bob')).status, 'active');
  });

  it('sets a new password, shown once, that the user then signs in with', async () => {
    const form = page.getByRole('form', { name: 'New password for bob' });
    await form.getByRole('button', { name: 'Generate' }).click();
    await form.getByRole('button', { name: 'Set password' }).click();
    const shown = form.locator('.user-new-password code');
    await shown.waitFor();
    const password = (await shown.textContent()) ?? '';
    assert.ok(password.length >= 20, `a generated password is shown (${password})`);
    await assert.rejects(test.anonymous.login('bob@example.com', STRONG_PASSWORD));
    const { session_token } = await test.anonymous.login('bob@example.com', password);
    assert.ok(session_token);
  });

  it('deletes a user after asking', async () => {
    await searchUsers('seed-00');
    await userRow('seed-00@example.com').getByRole('button', { name: 'Manage seed-00' }).click();
    await page.getByRole('button', { name: 'Delete seed-00' }).click();
    await page
      .getByRole('group', { name: /^Delete seed-00\?/ })
      .getByRole('button', { name: 'Delete', exact: true })
      .click();
    await page.getByText('No users match “seed-00”.').waitFor();
    await assert.rejects(owner.user('seed-00'));
  });

  it('edits the default organization’s settings', async () => {
    await page.getByRole('navigation', { name: 'Deployment' }).getByRole('link', { name: 'Organizations' }).click();
    await page.waitForURL(`${test.url}/organizations`);
    await page.getByRole('table', { name: 'Organizations' }).getByRole('link', { name: 'Cove', exact: true }).click();
    await page.waitForURL(`${test.url}/organizations/cove`);
    const form = page.getByRole('form', { name: 'Organization settings' });
    await form.getByLabel('Display name').fill('Cove Team');
    await form.getByLabel('Description').fill('Everyone who builds here');
    await form.getByLabel('Icon URL').fill('/emojis/1f3e2.png');
    await form.getByRole('button', { name: 'Save' }).click();
    await form.getByText('Saved.').waitFor();
    await page.getByRole('heading', { name: 'Cove Team', level: 1 }).waitFor();
    await shot('organization-settings');
    const cove = await owner.organization('cove');
    assert.equal(cove.display_name, 'Cove Team');
    assert.equal(cove.description, 'Everyone who builds here');
    assert.equal(cove.icon, '/emojis/1f3e2.png');
  });

  it('pages through the members of the default organization', async () => {
    await page.getByRole('navigation', { name: 'Organization' }).getByRole('link', { name: 'Members' }).click();
    await page.waitForURL(`${test.url}/organizations/cove/members`);
    const { count } = await owner.paginatedMembers('cove', { limit: 1 });
    assert.ok(count > 25);
    const pager = page.getByRole('navigation', { name: 'Member pages' });
    await pager.getByText(`1–25 of ${count}`).waitFor();
    await pager.getByRole('button', { name: 'Next' }).click();
    await pager.getByText(`26–${count} of ${count}`).waitFor();
  });

  it('creates an organization, adds a member, changes their role and removes them', async () => {
    await page.goto(`${test.url}/organizations`);
    const create = page.getByRole('form', { name: 'New organization' });
    await create.getByLabel('Name', { exact: true }).fill('research');
    await create.getByLabel('Display name').fill('Research');
    await create.getByRole('button', { name: 'Create organization' }).click();
    await page.waitForURL(`${test.url}/organizations/research`);
    assert.equal((await owner.organization('research')).display_name, 'Research');

    await page.getByRole('navigation', { name: 'Organization' }).getByRole('link', { name: 'Members' }).click();
    await page.waitForURL(`${test.url}/organizations/research/members`);
    const add = page.getByRole('form', { name: 'Add member' });
    await add.getByLabel('Username').fill('alice');
    await add.getByRole('button', { name: 'Add member' }).click();
    await add.getByText('Added alice.').waitFor();
    const members = page.getByRole('table', { name: 'Members' });
    await members.getByRole('cell', { name: 'alice@example.com' }).waitFor();
    assert.ok((await owner.organizationMembers('research')).some((member) => member.username === 'alice'));

    await members.getByRole('button', { name: 'Edit roles of alice' }).click();
    const roles = page.getByRole('form', { name: 'Organization roles of alice' });
    await roles.getByRole('checkbox', { name: 'Organization Auditor' }).check();
    await roles.getByRole('button', { name: 'Save roles' }).click();
    await roles.getByText('Roles saved.').waitFor();
    await shot('organization-members');
    const alice = (await owner.organizationMembers('research')).find((member) => member.username === 'alice');
    assert.deepEqual(
      alice?.roles.map((role) => role.name),
      ['organization-auditor'],
    );

    await members.getByRole('button', { name: 'Remove alice' }).click();
    await page.keyboard.press('Escape');
    assert.ok((await owner.organizationMembers('research')).some((member) => member.username === 'alice'));
    await members.getByRole('button', { name: 'Remove alice' }).click();
    await page
      .getByRole('group', { name: /^Remove alice/ })
      .getByRole('button', { name: 'Remove', exact: true })
      .click();
    await page.getByText('Removed alice.').waitFor();
    await members.getByRole('cell', { name: 'alice@example.com' }).waitFor({ state: 'detached' });
    assert.ok(!(await owner.organizationMembers('research')).some((member) => member.username === 'alice'));
  });

  it('creates a custom role with permissions and edits it', async () => {
    await page.getByRole('navigation', { name: 'Organization' }).getByRole('link', { name: 'Roles' }).click();
    await page.waitForURL(`${test.url}/organizations/research/roles`);
    await page
      .getByRole('table', { name: 'Roles' })
      .getByRole('cell', { name: /Organization Admin/ })
      .waitFor();
    await page.getByRole('button', { name: 'New custom role' }).click();
    const editor = page.getByRole('form', { name: 'New custom role' });
    await editor.getByLabel('Name', { exact: true }).fill('viewer');
    await editor.getByLabel('Display name').fill('Viewer');
    await editor.getByRole('checkbox', { name: 'Templates: read' }).check();
    await editor.getByRole('checkbox', { name: 'Workspaces: read' }).check();
    await shot('custom-role-editor');
    assert.deepEqual(await seriousAxeViolations(page), []);
    await editor.getByRole('button', { name: 'Create role' }).click();
    await editor.waitFor({ state: 'detached' });
    await page
      .getByRole('table', { name: 'Roles' })
      .getByRole('cell', { name: /Viewer/ })
      .waitFor();
    const permissionsOf = async () =>
      (await owner.organizationRoles('research'))
        .find((role) => role.name === 'viewer')
        ?.organization_permissions.map((p) => `${p.resource_type}:${p.action}`)
        .sort();
    assert.deepEqual(await permissionsOf(), ['template:read', 'workspace:read']);

    await page.getByRole('button', { name: 'Edit viewer' }).click();
    const edit = page.getByRole('form', { name: 'Edit viewer' });
    await edit.getByRole('checkbox', { name: 'Workspaces: read' }).uncheck();
    await edit.getByRole('checkbox', { name: 'Groups: read' }).check();
    await edit.getByRole('button', { name: 'Save role' }).click();
    await edit.waitFor({ state: 'detached' });
    assert.deepEqual(await permissionsOf(), ['group:read', 'template:read']);
    assert.deepEqual(pageErrors, []);
  });

  it('shows a member neither the link nor the pages', async () => {
    await page.locator('.account-menu-button').click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login/);
    await signInWithPassword(page, test.url, 'alice@example.com', STRONG_PASSWORD);
    await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deployment' }).count(), 0);
    for (const path of ['/deployment/users', '/deployment/users/new', '/organizations', '/organizations/cove/members']) {
      await page.goto(`${test.url}${path}`);
      await page.getByText('You are not allowed to see this page').waitFor();
      assert.equal(await page.getByRole('table').count(), 0);
    }
    await shot('member-not-allowed');
  });

  it('opens the users page to a user admin, who may not make organizations', async () => {
    await owner.setSiteRoles('carol', ['user-admin']);
    await page.locator('.account-menu-button').click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login/);
    await signInWithPassword(page, test.url, 'carol@example.com', STRONG_PASSWORD);
    await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Deployment' }).click();
    await page.getByRole('navigation', { name: 'Deployment' }).getByRole('link', { name: 'Users' }).click();
    await page
      .getByRole('navigation', { name: 'User pages' })
      .getByText(/^1–25 of /)
      .waitFor();
    await page.getByRole('navigation', { name: 'Deployment' }).getByRole('link', { name: 'Organizations' }).click();
    await page.getByRole('table', { name: 'Organizations' }).getByRole('link', { name: 'Cove Team', exact: true }).waitFor();
    assert.equal(await page.getByRole('form', { name: 'New organization' }).count(), 0);
  });

  it('answers each new page’s address with the dashboard, so that a reload or a shared link opens it', async () => {
    for (const path of [
      '/deployment/users',
      '/deployment/users/new',
      '/organizations',
      '/organizations/cove',
      '/organizations/cove/roles',
    ]) {
      const answer = await fetch(`${test.url}${path}`, { headers: { accept: 'text/html' } });
      assert.equal(answer.status, 200, path);
      assert.equal(answer.headers.get('content-type'), 'text/html; charset=utf-8', path);
    }
  });
});
