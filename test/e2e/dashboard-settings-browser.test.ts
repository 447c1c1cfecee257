import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import type { CoveClient } from '../../src/sdk/client.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { createMember, STRONG_PASSWORD, createOwner, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { seriousAxeViolations } from '../helpers/axe-check.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = join(ROOT, 'test-output/dashboard/settings');
const EMAIL = 'alice@example.com';
const NEW_PASSWORD = 'Another-Strong-Passphrase-42';

/** Polls `read` until `accept` takes its value (the page saves in the background), and gives that value. */
async function eventually<T>(read: () => Promise<T>, accept: (value: T) => boolean, what: string): Promise<T> {
  let last: T | undefined;
  for (let attempt = 0; attempt < 300; attempt++) {
    last = await read();
    if (accept(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail(`${what} (last read: ${JSON.stringify(last)})`);
}

// The user's own settings pages in a real Chromium against a daemon serving the checkout's built
// dashboard (`node scripts/build.mjs`): each page is reached through the header's user menu, and
// what is done there is read back through the API.
describe("the dashboard's account settings", { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let alice: CoveClient;
  let aliceToken: string;
  let browser: HeadlessChromium;
  let page: Page;
  const pageErrors: string[] = [];

  /** Opens the user menu with the mouse and follows one of its items. */
  async function openFromMenu(item: string, path: string, title: string): Promise<void> {
    await page.getByRole('button', { name: /alice/ }).click();
    await page.getByRole('menu').getByRole('menuitem', { name: item, exact: true }).click();
    await page.waitForURL(`${test.url}${path}`);
    await page.getByRole('heading', { level: 1, name: item }).waitFor();
    assert.equal(await page.title(), title);
  }

  const screenshot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });

  before(async () => {
    assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
    test = await startTestDaemon();
    owner = await createOwner(test);
    await createMember(test, 'alice');
    aliceToken = (await test.anonymous.login(EMAIL, STRONG_PASSWORD)).session_token;
    alice = test.anonymous.withToken(aliceToken);
    browser = await launchChromium({ width: 1280, height: 800 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(15_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await browser.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: test.url });
    await mkdir(SCREENSHOTS, { recursive: true });
    await signInWithPassword(page, test.url, EMAIL, STRONG_PASSWORD);
    await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it('opens the user menu from the keyboard, moves with the arrows and closes with Escape', async () => {
    const button = page.getByRole('button', { name: /alice/ });
    assert.equal(await button.getAttribute('aria-haspopup'), 'menu');
    await button.focus();
    await page.keyboard.press('Enter');
    const menu = page.getByRole('menu');
    await menu.waitFor();
    assert.equal(await button.getAttribute('aria-expanded'), 'true');
    assert.deepEqual(await menu.getByRole('menuitem').allInnerTexts(), [
      'Account',
      'Security',
      'Appearance',
      'Tokens',
      'SSH keys',
      'Schedule',
      'Notifications',
      'External auth',
      'Sign out',
    ]);
    await screenshot('user-menu');
    const focused = () => page.evaluate<string>('document.activeElement ? document.activeElement.textContent.trim() : ""');
    assert.equal(await focused(), 'Account');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await focused(), 'Appearance');
    await page.keyboard.press('ArrowUp');
    assert.equal(await focused(), 'Security');
    await page.keyboard.press('Escape');
    await menu.waitFor({ state: 'detached' });
    assert.equal(await button.getAttribute('aria-expanded'), 'false');
    assert.equal(
      await page.evaluate<string>('document.activeElement.getAttribute("aria-haspopup")'),
      'menu',
      'focus is back on the button',
    );
    // Space opens it too, and Enter on an item follows it.
    await page.keyboard.press(' ');
    await menu.waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${test.url}/settings/security`);
    await menu.waitFor({ state: 'detached' });
  });

  it('draws the open menu without an axe violation in the light and the dark theme', async () => {
    for (const theme of ['light', 'dark'] as const) {
      await alice.updateUserAppearance({ theme_preference: theme });
      await page.goto(`${test.url}/workspaces`);
      await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
      await page.locator('.account-menu-button').click();
      await page.getByRole('menu').waitFor();
      assert.deepEqual(await seriousAxeViolations(page), [], `${theme} theme`);
      await screenshot(`user-menu-${theme}`);
      await page.keyboard.press('Escape');
    }
    await alice.updateUserAppearance({ theme_preference: 'auto' });
  });

  it('changes the profile name on the account page', async () => {
    await openFromMenu('Account', '/settings/account', 'Account · Cove');
    assert.equal(await page.getByLabel('Email').inputValue(), EMAIL);
    await page.getByText('Password', { exact: true }).waitFor();
    await page.getByLabel('Name (optional)').fill('Alice Liddell');
    await page.getByRole('button', { name: 'Save profile' }).click();
    await page.getByText('Profile saved.').waitFor();
    await screenshot('account');
    assert.equal((await alice.user()).name, 'Alice Liddell');
    assert.equal((await alice.user()).username, 'alice');
  });

  it('stores the theme and the terminal font on the appearance page', async () => {
    await openFromMenu('Appearance', '/settings/appearance', 'Appearance · Cove');
    await page.getByRole('radio', { name: 'Dark' }).check();
    await eventually(
      () => alice.userAppearance(),
      (settings) => settings.theme_preference === 'dark',
      'the theme is stored',
    );
    assert.equal(await page.evaluate<string | undefined>('document.documentElement.dataset.theme'), 'dark');
    // The header's switcher shows the same choice, once the session's user is read again after the save.
    await page.waitForFunction("document.querySelector('.theme-switcher select')?.value === 'dark'", undefined, { timeout: 5000 });
    await page.getByLabel('Terminal font').selectOption({ label: 'Fira Code' });
    await page.getByText('Terminal font: Fira Code.').waitFor();
    assert.deepEqual(await alice.userAppearance(), { theme_preference: 'dark', terminal_font: 'fira-code' });
    await screenshot('appearance');
    await page.getByRole('radio', { name: 'Light' }).check();
    await eventually(
      () => alice.userAppearance(),
      (settings) => settings.theme_preference === 'light' && settings.terminal_font === 'fira-code',
      'the theme changes and the font stays',
    );
  });

  it('creates a token, shows its secret once, and deletes it after confirming', async () => {
    await openFromMenu('Tokens', '/settings/tokens', 'Tokens · Cove');
    const maxDays = (await alice.tokenConfig()).max_token_lifetime / 86_400e9;
    await page.getByText(/^At most .* on this deployment\.$/).waitFor();
    await page.getByLabel('Name', { exact: true }).fill('ci-runner');
    await page.getByLabel('Lifetime').selectOption({ label: 'Custom…' });
    // Longer than the deployment allows: refused before it is sent.
    await page.getByLabel('Days').fill(String(Math.floor(maxDays) + 1));
    await page.getByText(/the longest this deployment allows/).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Create token' }).isDisabled(), true);
    await page.getByLabel('Days').fill('10');
    await page.getByRole('button', { name: 'Create token' }).click();
    await page.getByRole('heading', { name: 'Token ci-runner created' }).waitFor();
    const secret = (await page.locator('.token-secret code').innerText()).trim();
    // The button is named for what it copies: the secret is not read out, nor left in an attribute.
    await page.locator('.token-secret').getByRole('button', { name: 'Copy the token', exact: true }).click();
    assert.equal(await page.locator(`[aria-label*="${secret.slice(-12)}"]`).count(), 0);
    await page.locator('.token-secret').getByText('Copied to the clipboard.').waitFor();
    assert.equal(await page.evaluate<string>('navigator.clipboard.readText()'), secret);
    await screenshot('tokens-created');

    const listed = await alice.listTokens();
    const token = listed.find((item) => item.token_name === 'ci-runner');
    assert.ok(token, 'the token is listed by the API');
    assert.equal(token.lifetime_seconds, 10 * 86_400);
    // The secret the page showed is the token's own.
    assert.equal((await test.anonymous.withToken(secret).user()).username, 'alice');

    const row = page.getByRole('row', { name: 'ci-runner' });
    await row.waitFor();
    await row.getByRole('button', { name: 'Delete' }).click();
    await page.keyboard.press('Escape');
    await row.getByRole('button', { name: 'Delete' }).waitFor();
    assert.ok(
      (await alice.listTokens()).some((item) => item.token_name === 'ci-runner'),
      'Escape deleted nothing',
    );
    await row.getByRole('button', { name: 'Delete' }).click();
    await row.getByRole('button', { name: 'Yes, delete it' }).click();
    await page.getByText('Token ci-runner deleted.').waitFor();
    await row.waitFor({ state: 'detached' });
    assert.equal(
      (await alice.listTokens()).some((item) => item.token_name === 'ci-runner'),
      false,
    );
  });

  it('shows the git SSH public key and regenerates it after confirming', async () => {
    const before = await alice.gitSshKey();
    await openFromMenu('SSH keys', '/settings/ssh-keys', 'SSH keys · Cove');
    const shown = page.locator('.copy-command code');
    assert.equal((await shown.innerText()).trim(), before.public_key.trim());
    await page.getByRole('button', { name: 'Regenerate' }).click();
    await page.getByRole('button', { name: 'Yes, make a new key' }).click();
    await page.getByText(/A new key was made/).waitFor();
    const after = await alice.gitSshKey();
    assert.notEqual(after.public_key, before.public_key);
    assert.equal((await shown.innerText()).trim(), after.public_key.trim());
    await screenshot('ssh-keys');
  });

  it('sets the quiet hours through the form, and the API reads them back', async () => {
    await openFromMenu('Schedule', '/settings/schedule', 'Schedule · Cove');
    // Nothing chosen yet: the form shows the deployment default.
    await page.getByText('The deployment’s default schedule, until you choose one.').waitFor();
    assert.equal(await page.getByLabel('Start of quiet hours').inputValue(), '00:00');
    await page.getByLabel('Start of quiet hours').fill('03:30');
    await page.getByLabel('Timezone').selectOption('Europe/Berlin');
    await page.getByRole('button', { name: 'Save quiet hours' }).click();
    await page.getByText('Quiet hours saved.').waitFor();
    const stored = await alice.userQuietHoursSchedule();
    assert.deepEqual(
      [stored.raw_schedule, stored.user_set, stored.time, stored.timezone],
      ['CRON_TZ=Europe/Berlin 30 3 * * *', true, '03:30', 'Europe/Berlin'],
    );
    await page.getByText('You chose this schedule.').waitFor();
    // A fresh load shows what was stored, not what the form last held.
    await page.reload();
    await page.getByText('You chose this schedule.').waitFor();
    assert.equal(await page.getByLabel('Start of quiet hours').inputValue(), '03:30');
    assert.equal(await page.getByLabel('Timezone').inputValue(), 'Europe/Berlin');
    await screenshot('schedule');
  });

  it('shows the server refusing a wrong current password, and changes nothing', async () => {
    await openFromMenu('Security', '/settings/security', 'Security · Cove');
    await page.getByLabel('Current password').fill('not-my-password');
    await page.getByLabel('New password', { exact: true }).fill(NEW_PASSWORD);
    await page.getByLabel('Confirm new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    const problem = page.locator('#old-password-note');
    await problem.waitFor();
    assert.equal((await problem.innerText()).trim(), 'Old password is incorrect.');
    assert.equal(await page.getByLabel('Current password').getAttribute('aria-invalid'), 'true');
    await screenshot('security-refused');
    // The old password still signs in; the new one does not.
    await test.anonymous.login(EMAIL, STRONG_PASSWORD);
    await assert.rejects(test.anonymous.login(EMAIL, NEW_PASSWORD));
  });

  it('checks that the new password was typed the same twice before sending it', async () => {
    await page.getByLabel('Current password').fill(STRONG_PASSWORD);
    await page.getByLabel('Confirm new password').fill(`${NEW_PASSWORD}-typo`);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('The two new passwords differ.').waitFor();
    await test.anonymous.login(EMAIL, STRONG_PASSWORD);
  });

  it('changes the password, after which the new one signs in', async () => {
    await page.getByLabel('Confirm new password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText(/^Password changed\./).waitFor();
    await screenshot('security-changed');
    const { session_token } = await test.anonymous.login(EMAIL, NEW_PASSWORD);
    assert.equal((await test.anonymous.withToken(session_token).user()).username, 'alice');
    await assert.rejects(test.anonymous.login(EMAIL, STRONG_PASSWORD));
  });

  it('tells a user who signs in without a password that there is none to change', async () => {
    await owner.createUser({
      email: 'bob@example.com',
      username: 'bob',
      login_type: 'none',
      user_status: 'active',
      organization_ids: ['00000000-0000-0000-0000-000000000000'],
    });
    // No password to sign in with: the dashboard is given a session the owner made for bob.
    const { key } = await owner.createSessionKey('bob');
    await browser.context.addCookies([{ name: 'service_session_token', value: key, url: test.url }]);
    await page.goto(`${test.url}/settings/security`);
    await page.getByRole('heading', { level: 1, name: 'Security' }).waitFor();
    await page.getByText(/used through API tokens alone, so it has no password to change/).waitFor();
    assert.equal(await page.getByLabel('Current password').count(), 0);
    await screenshot('security-no-password');
    await browser.context.clearCookies();
  });

  it('signs out from the user menu', async () => {
    await signInWithPassword(page, test.url, EMAIL, NEW_PASSWORD);
    await page.getByRole('button', { name: /alice/ }).click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login/);
    assert.deepEqual(pageErrors, []);
  });
});

// A deployment started with `--allow-custom-quiet-hours=false`: the page shows the default and
// offers nothing to change.
describe("the dashboard's quiet hours when users may not choose them", { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  let test: TestDaemon;
  let browser: HeadlessChromium;
  let page: Page;

  before(async () => {
    assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
    test = await startTestDaemon({
      flags: { allowCustomQuietHours: 'false', defaultQuietHoursSchedule: 'CRON_TZ=America/Chicago 0 4 * * *' },
    });
    await createOwner(test);
    await createMember(test, 'alice');
    browser = await launchChromium({ width: 1280, height: 800 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(15_000);
    await mkdir(SCREENSHOTS, { recursive: true });
    await signInWithPassword(page, test.url, EMAIL, STRONG_PASSWORD);
    await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
  });

  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it('shows the deployment schedule, locked, with no way to save', async () => {
    await page.goto(`${test.url}/settings/schedule`);
    await page.getByRole('heading', { level: 1, name: 'Schedule' }).waitFor();
    await page.getByText("This deployment sets everyone's quiet hours; you cannot change yours.").waitFor();
    await page.getByText('The deployment’s schedule.').waitFor();
    assert.equal(await page.getByLabel('Start of quiet hours').inputValue(), '04:00');
    assert.equal(await page.getByLabel('Start of quiet hours').isDisabled(), true);
    assert.equal(await page.getByLabel('Timezone').inputValue(), 'America/Chicago');
    assert.equal(await page.getByLabel('Timezone').isDisabled(), true);
    assert.equal(await page.getByRole('button', { name: 'Save quiet hours' }).count(), 0);
    await page.screenshot({ path: join(SCREENSHOTS, 'schedule-locked.png'), fullPage: true });
  });
});
