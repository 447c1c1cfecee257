import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { browserMissing, launchChromium, type HeadlessChromium } from '../helpers/chromium.js';
import { STRONG_PASSWORD } from '../helpers/test-daemon.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { TerminalUser, type ServeProcess } from '../helpers/terminal-user.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = join(ROOT, 'test-output/dashboard');
const WIDE = { width: 1440, height: 900 };
const NARROW = { width: 375, height: 800 };
const EMAIL = 'admin@example.com';

// The person's daily path through the dashboard, in a real Chromium against `cove serve` with its
// built-in provisioner: the local-shell example really runs an agent process on this machine.
describe('the web dashboard in a real browser', { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  const user = new TerminalUser('web');
  const { root } = user;
  const cove = (...args: string[]) => user.cove(...args);
  let serve: ServeProcess | undefined;
  let app: Server;
  let browser: HeadlessChromium;
  let page: Page;
  let url = '';
  /** What the page's console said about refused scripts or styles (the CSP allows none inline). */
  const policyViolations: string[] = [];
  /** Exceptions the dashboard's code threw. */
  const pageErrors: string[] = [];

  /** Saves the page at both widths as `name-1440.png` and `name-375.png`, leaving it wide. */
  const screenshots = async (name: string) => {
    for (const size of [WIDE, NARROW]) {
      await page.setViewportSize(size);
      await page.waitForTimeout(150);
      await page.screenshot({ path: join(SCREENSHOTS, `${name}-${size.width}.png`), fullPage: size === NARROW });
    }
    await page.setViewportSize(WIDE);
  };

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    app = createServer((_request, response) => response.end('<!doctype html><title>hello app</title><p id="greeting">hello-from-app</p>'));
    await new Promise<void>((done) => app.listen(0, '127.0.0.1', done));
    serve = await user.serve();
    url = serve.url;
    browser = await launchChromium(WIDE);
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) policyViolations.push(message.text());
    });
  });

  after(async () => {
    // If a step failed half-way, the workspace's agent process still runs: deleting stops it.
    if (url) cove('delete', 'dev', '-y');
    await browser?.close();
    await serve?.close();
    app?.close();
    user.remove();
  });

  it('creates the first user through the sign-in page and lands where it was going', async () => {
    await page.goto(`${url}/workspaces`);
    await page.waitForURL(/\/login\?redirect=/);
    await page.getByRole('heading', { name: 'Create the first user' }).waitFor();
    await screenshots('setup');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: 'Create user and sign in' }).click();
    await page.waitForURL(`${url}/workspaces`);
    await page.getByRole('heading', { name: 'Workspaces' }).waitFor();
    await page.getByText('No workspaces match').waitFor();
  });

  it('creates a workspace from the local-shell example through the form and sees it run, live', async () => {
    // The template comes from the CLI, signed in with the session the browser holds.
    const token = (await browser.context.cookies(url)).find((cookie) => cookie.name === 'service_session_token')?.value;
    assert.ok(token, 'the sign-in set the session cookie');
    assert.equal(cove('login', '--token', token, url).code, 0);
    assert.equal(cove('templates', 'init', '--id', 'local-shell', 'shell').code, 0);
    // An app on the agent, served by this test, to open from the dashboard later.
    const templateFile = join(root, 'shell', 'template.yaml');
    const port = (app.address() as AddressInfo).port;
    const template = readFileSync(templateFile, 'utf8').replace(
      /^( +)display_apps: .*$/m,
      (line, indent: string) =>
        `${line}\n${indent}apps:\n${indent}  - slug: hello\n${indent}    display_name: Hello app\n${indent}    url: http://127.0.0.1:${port}`,
    );
    assert.match(template, /slug: hello/);
    // Rich parameters of three kinds and a preset, for the form to show and check.
    writeFileSync(
      templateFile,
      `${template}
parameters:
  - name: region
    display_name: Region
    description: Where the workspace runs
    default: eu
    options:
      - { name: Europe, value: eu, icon: /icon/globe.svg }
      - { name: United States, value: us, icon: /icon/globe.svg }
  - name: disk_gb
    display_name: Disk (GB)
    type: number
    default: 20
    mutable: true
    validation: { min: 10, max: 200, error: "Pick {min} to {max} GB" }
  - name: dotfiles
    display_name: Install dotfiles
    type: bool
    default: "false"
presets:
  - name: Tiny
    parameters: { disk_gb: "10" }
`,
    );
    const push = cove('templates', 'push', 'shell', '-y');
    assert.equal(push.code, 0, push.stderr);

    await page.goto(`${url}/templates/shell/workspace`);
    await page.getByRole('form', { name: 'Create workspace' }).waitFor();
    // A bad name is refused with a message, before anything is sent.
    await page.getByLabel('Workspace name').fill('no spaces');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByText('Use up to 32 letters, digits and single dashes.').waitFor();
    await page.getByLabel('Workspace name').fill('dev');
    // A number outside its limits is refused with the template's own message.
    await page.getByLabel(/Disk \(GB\)/).fill('500');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByText('Disk (GB): Pick 10 to 200 GB').waitFor();
    await page.getByLabel(/Disk \(GB\)/).fill('30');
    await page.getByRole('radio', { name: /United States/ }).check();
    await page.getByRole('checkbox', { name: 'Install dotfiles' }).check();
    await screenshots('create');
    const started = Date.now();
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.waitForURL(`${url}/@admin/dev`);
    // The page follows the build over the watch stream: no reload happens from here on.
    await markPage(page);
    await page.locator('.workspace-header [data-status="running"]').waitFor({ timeout: 90_000 });
    await page.locator('[data-agent="main"] [data-status="connected"]').waitFor({ timeout: 60_000 });
    await page.locator('[data-agent="main"] [data-status="ready"]').waitFor({ timeout: 60_000 });
    assert.ok(Date.now() - started < 120_000);
    // The build log showed the stages the provisioner went through.
    await page
      .getByRole('region', { name: /Build #1: start/ })
      .getByText('succeeded')
      .waitFor();
    await assertSamePage(page);
    await page.getByRole('link', { name: 'Terminal' }).waitFor();
    // The build got the values the form was given.
    const shown = JSON.parse(cove('show', 'dev', '-o', 'json').stdout) as { latest_build: { id: string } };
    const parameters = await (
      await fetch(`${url}/api/v2/workspacebuilds/${shown.latest_build.id}/parameters`, { headers: { 'Service-Session-Token': token } })
    ).json();
    assert.deepEqual(parameters, [
      { name: 'region', value: 'us' },
      { name: 'disk_gb', value: '30' },
      { name: 'dotfiles', value: 'true' },
    ]);
    // The schedule saves, and says so (on the settings page the workspace's Schedule card links to).
    await page.getByRole('link', { name: 'Change the schedule' }).click();
    await page.getByLabel('Stop after (hours without use)').fill('8');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.getByText('Schedule saved.').waitFor();
    await page.goBack();
    await page.getByRole('link', { name: 'Change the schedule' }).waitFor();
    await page.emulateMedia({ colorScheme: 'dark' });
    await page.screenshot({ path: join(SCREENSHOTS, 'workspace-dark-1440.png') });
    await page.emulateMedia({ colorScheme: 'light' });
    await screenshots('workspace');
  });

  it('runs a shell in the web terminal, and a reload reattaches to it with its output', async () => {
    // The user's terminal font, as the account settings would save it (the theme left to the system).
    const saved = await page.evaluate<number>(
      `fetch('/api/v2/users/me/appearance', { method: 'PUT', headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ theme_preference: 'auto', terminal_font: 'fira-code' }) }).then((response) => response.status)`,
    );
    assert.equal(saved, 200);
    await page.getByRole('link', { name: 'Terminal' }).click();
    await page.waitForURL(/\/@admin\/dev\.main\/terminal\?reconnect=[0-9a-f-]{36}$/);
    const terminalUrl = page.url();
    const rows = page.locator('.xterm-rows');
    await rows.waitFor();
    // The terminal asks for that font, and falls back to the system's monospace fonts without it.
    const font = await page.evaluate<string>("getComputedStyle(document.querySelector('.xterm-rows')).fontFamily");
    assert.match(font, /^"Fira Code", ui-monospace, .*monospace$/);
    // The shell's first output (its prompt) says the terminal's stream is open: keys typed before it have nowhere to go.
    await waitForText(page, (text) => text.trim() !== '');
    await page.locator('.xterm').click();
    await page.keyboard.type('echo typed-in-browser\n');
    // Once as typed, once as the shell's output.
    await waitForText(page, (text) => (text.match(/typed-in-browser/g) ?? []).length >= 2);
    await screenshots('terminal');

    await page.reload();
    assert.equal(page.url(), terminalUrl);
    await rows.waitFor();
    await waitForText(page, (text) => (text.match(/typed-in-browser/g) ?? []).length >= 2);
    // The same shell: what it remembers from before the reload.
    await page.locator('.xterm').click();
    await page.keyboard.type('echo "$((6*7))-again"\n');
    await waitForText(page, (text) => text.includes('42-again'));
  });

  it('signs a signed-out browser in on the way to an app and lands on the app', async () => {
    await page.goto(`${url}/workspaces`);
    await page.locator('.account-menu-button').click();
    await page.getByRole('menuitem', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login/);
    const appUrl = `${url}/@admin/dev.main/apps/hello/`;
    await page.goto(appUrl);
    await page.waitForURL(/\/login\?redirect=/);
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    await screenshots('sign-in');
    await page.getByLabel('Email').fill(EMAIL);
    await page.getByLabel('Password').fill(STRONG_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(appUrl);
    assert.equal(await page.locator('#greeting').textContent(), 'hello-from-app');
  });

  it('shows the workspaces list within a second of a cold load, and stops one from there, live', async () => {
    const cdp = await browser.context.newCDPSession(page);
    await cdp.send('Network.clearBrowserCache');
    await cdp.detach();
    const row = page.locator('[data-workspace="dev"]');
    const loadStarted = Date.now();
    await page.goto(`${url}/workspaces`);
    await row.locator('[data-status="running"]').waitFor();
    const loadMs = Date.now() - loadStarted;
    assert.ok(loadMs < 1000, `the workspaces page took ${loadMs} ms to list the workspace`);
    await row.getByRole('button', { name: 'Favorite dev', exact: true }).click();
    await row.getByRole('button', { name: 'Unfavorite dev' }).waitFor();
    await screenshots('workspaces');
    await markPage(page);
    assert.equal(await page.title(), 'Workspaces · Cove');
    // Escape takes a question back, and the keyboard is where it was.
    await row.getByRole('button', { name: 'Stop' }).click();
    await page.keyboard.press('Escape');
    await row.getByRole('button', { name: 'Yes, stop' }).waitFor({ state: 'detached' });
    assert.equal(await page.evaluate<string | undefined>('document.activeElement?.textContent'), 'Stop');
    await row.getByRole('button', { name: 'Stop' }).click();
    await row.getByRole('button', { name: 'Yes, stop' }).click();
    await row.locator('[data-status="stopped"]').waitFor({ timeout: 60_000 });
    await row.getByRole('button', { name: 'Start' }).waitFor();
    await assertSamePage(page);
  });

  it('shows the templates, a template with its versions, and the deployment to its owner', async () => {
    await page.getByRole('link', { name: 'Templates' }).click();
    await page.getByRole('link', { name: 'shell' }).click();
    await page.waitForURL(`${url}/templates/shell`);
    await page.getByRole('cell', { name: /active/ }).waitFor();
    await page.getByText('cove templates push shell').waitFor();
    await screenshots('template');
    // A refused action shows the API's message.
    await page.getByRole('link', { name: 'Create workspace' }).click();
    await page.getByLabel('Workspace name').fill('dev');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    assert.match((await page.locator('.notice-error').textContent()) ?? '', /dev/);
    await page.getByRole('link', { name: 'Deployment' }).click();
    await page.getByRole('heading', { name: 'Health' }).waitFor();
    await page.locator('.health-item').first().waitFor({ timeout: 60_000 });
    await page.getByRole('link', { name: 'users page' }).waitFor();
    await screenshots('deployment');
  });

  it('takes a keyboard from the top of a page to its actions, with the focus always visible', async () => {
    await page.goto(`${url}/workspaces`);
    await page.locator('[data-workspace="dev"]').waitFor();
    const reached: string[] = [];
    for (let presses = 0; presses < 25 && !reached.includes('Start'); presses++) {
      await page.keyboard.press('Tab');
      const focused = await page.evaluate<{ name: string; outline: string } | undefined>(FOCUSED_ELEMENT);
      assert.ok(focused, `Tab number ${presses + 1} moved the focus onto something`);
      assert.notEqual(focused.outline, 'none', `the focus on "${focused.name}" is drawn`);
      reached.push(focused.name);
    }
    for (const name of ['Workspaces', 'New workspace', 'Filter', 'Start'])
      assert.ok(reached.includes(name), `"${name}" is reachable by Tab (reached: ${reached.join(' | ')})`);
    // Enter on a focused link follows it.
    while ((await page.evaluate<{ name: string } | undefined>(FOCUSED_ELEMENT))?.name !== 'New workspace')
      await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/workspaces\/new$/);
  });

  it('names each page in its tab, and shows a page of its own, with a way back, where nothing lives', async () => {
    await page.goto(`${url}/templates/shell`);
    await page.getByRole('cell', { name: /active/ }).waitFor();
    assert.equal(await page.title(), 'Template shell · Cove');
    const answer = await page.goto(`${url}/no-such-page`);
    assert.equal(answer?.status(), 404);
    await page.getByRole('heading', { name: 'Page not found' }).waitFor();
    assert.equal(await page.title(), 'Page not found · Cove');
    // The tab's icon is the dashboard's, not a 404.
    const icon = await page.evaluate<string | undefined>(`document.querySelector('link[rel="icon"]')?.href`);
    assert.equal((await fetch(icon ?? `${url}/none`)).status, 200);
    await page.getByRole('link', { name: 'Go to your workspaces' }).click();
    await page.locator('[data-workspace="dev"]').waitFor();
    assert.equal(await page.title(), 'Workspaces · Cove');
  });

  it('loaded nothing the Content-Security-Policy refused, and threw nothing', () => {
    assert.deepEqual(policyViolations, []);
    assert.deepEqual(pageErrors, []);
  });
});

/**
 * Run in the page: the focused element's accessible name (its aria-label, its label's text or its
 * own text) and the style of the outline drawn around it; undefined when nothing has the focus.
 */
const FOCUSED_ELEMENT = `(() => {
  const element = document.activeElement;
  if (!element || element === document.body) return undefined;
  const label = element instanceof HTMLInputElement ? element.labels?.[0]?.textContent : undefined;
  const name = (element.getAttribute('aria-label') ?? label ?? element.textContent ?? '').trim();
  return { name, outline: getComputedStyle(element).outlineStyle };
})()`;

/** Waits until the terminal's rendered rows satisfy `check`. */
async function waitForText(page: Page, check: (text: string) => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const text = (await page.locator('.xterm-rows').textContent()) ?? '';
    if (check(text)) return;
    if (Date.now() > deadline) assert.fail(`the terminal never showed what was expected; it shows:\n${text}`);
    await page.waitForTimeout(100);
  }
}

/** Marks the loaded document, so a later check can tell the page was never reloaded. */
async function markPage(page: Page): Promise<void> {
  await page.evaluate('document.documentElement.dataset.testMark = "not-reloaded"');
}

async function assertSamePage(page: Page): Promise<void> {
  assert.equal(await page.locator('html[data-test-mark="not-reloaded"]').count(), 1, 'the page was reloaded');
}
