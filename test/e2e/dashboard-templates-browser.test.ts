import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { createTar, tarToZip } from '../../src/lib/archive/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Template, TemplateExample, TemplateVersion } from '../../src/sdk/wire/index.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { eventually } from '../helpers/eventually.js';
import { expectApiError } from '../helpers/expect-api-error.js';
import { createMember, createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';
import { seriousAxeViolations } from '../helpers/axe-check.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = join(ROOT, 'test-output/dashboard/templates');

/** An echo template whose workspaces have one agent, so that their use can be reported. */
const WITH_AGENT = { apply: { resources: [{ name: 'box', type: 'echo', agents: [{ name: 'main' }] }] } };

// Managing templates in a real Chromium against a daemon serving the checkout's built dashboard
// (`node scripts/build.mjs`): each action in the browser is read back through the API.
describe('template management in a real browser', { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let browser: HeadlessChromium;
  let page: Page;
  let files: string;
  let firstVersion: TemplateVersion;
  let secondVersion: TemplateVersion;
  const pageErrors: string[] = [];

  const uploaded = () => owner.templateByName('default', 'uploaded');
  const shot = (name: string) => page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
  /** Writes an archive for the file input: a tar of these files, or these bytes as they are. */
  const archive = async (name: string, content: Record<string, string> | Uint8Array) => {
    const path = join(files, name);
    await writeFile(path, content instanceof Uint8Array ? content : await createTar(content));
    return path;
  };

  before(async () => {
    assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
    await mkdir(SCREENSHOTS, { recursive: true });
    files = await mkdtemp(join(tmpdir(), 'cove-template-files-'));
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    // The browser reports on its own clock's week: the daemon's is set to the same time.
    test.clock.set(new Date());
    owner = await createOwner(test);
    browser = await launchChromium({ width: 1280, height: 900 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(30_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await signInWithPassword(page, test.url, 'owner@example.com', STRONG_PASSWORD);
  });

  after(async () => {
    await browser?.close();
    await test?.close();
    if (files) await rm(files, { recursive: true, force: true });
  });

  it('creates a template from a built-in example', async () => {
    const examples: TemplateExample[] = await owner.templateExamples();
    const example = examples.find((candidate) => candidate.id === 'local-shell');
    assert.ok(example, 'the local-shell example is built in');
    await page.goto(`${test.url}/templates`);
    await page.getByRole('link', { name: 'New template' }).click();
    await page.waitForURL(`${test.url}/templates/new`);
    await page.getByRole('radio', { name: new RegExp(example.name) }).check();
    // Choosing the example names the template after it.
    assert.equal(await page.getByRole('textbox', { name: /^Name/ }).inputValue(), 'local-shell');
    await page.getByRole('textbox', { name: /^Name/ }).fill('from-example');
    await page.getByLabel('Display name').fill('From an example');
    await shot('create-from-example');
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.waitForURL(`${test.url}/templates/from-example`, { timeout: 120_000 });
    await page.getByRole('heading', { name: 'From an example', level: 1 }).waitFor();

    const template: Template = await owner.templateByName('default', 'from-example');
    assert.equal(template.display_name, 'From an example');
    assert.equal(template.icon, example.icon);
    const [version] = await owner.templateVersions(template.id);
    assert.equal(version?.id, template.active_version_id);
    assert.equal(version?.job.status, 'succeeded');
  });

  it('shows a bad archive and a failed import with its log, then creates a template from an uploaded archive', async () => {
    await page.goto(`${test.url}/templates/new`);
    await page.getByRole('radio', { name: /An archive you upload/ }).check();
    await page.getByRole('textbox', { name: /^Name/ }).fill('uploaded');

    await page
      .locator('input[type="file"]')
      .setInputFiles(await archive('junk.tar', new TextEncoder().encode('this is not a tar archive')));
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.locator('.notice-error').waitFor();
    assert.equal(
      (await owner.templates()).some((template) => template.name === 'uploaded'),
      false,
    );

    const broken = {
      parse: { error: 'the template declares no compute', logs: [{ level: 'error', output: 'reading the template files' }] },
    };
    // A zip this time: the server turns it into the tar that the import reads.
    const zip = await tarToZip(await createTar({ 'echo.json': JSON.stringify(broken) }));
    await page.locator('input[type="file"]').setInputFiles(await archive('broken.zip', zip));
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.getByText('The import failed').waitFor();
    await page.locator('.build-log').getByText('reading the template files').waitFor();
    assert.match((await page.locator('.notice-error').textContent()) ?? '', /the template declares no compute/);
    await shot('create-failed-import');
    assert.equal(
      (await owner.templates()).some((template) => template.name === 'uploaded'),
      false,
    );

    await page
      .locator('input[type="file"]')
      .setInputFiles(await archive('good.tar', { 'echo.json': JSON.stringify(WITH_AGENT), 'README.md': '# Uploaded\n' }));
    await page.getByRole('button', { name: 'Create template' }).click();
    await page.waitForURL(`${test.url}/templates/uploaded`, { timeout: 120_000 });
    const template = await uploaded();
    [firstVersion] = (await owner.templateVersions(template.id)) as [TemplateVersion];
    assert.equal(firstVersion.id, template.active_version_id);
    assert.equal(firstVersion.job.status, 'succeeded');
    assert.deepEqual(pageErrors, []);
  });

  it('lists the versions and promotes a second one pushed through the API', async () => {
    const template = await uploaded();
    const { id: fileId } = await owner.uploadFile(await createTar({ 'echo.json': JSON.stringify(WITH_AGENT), 'README.md': '# Second\n' }));
    secondVersion = await owner.createTemplateVersion('default', {
      file_id: fileId,
      template_id: template.id,
      name: 'second',
      message: 'A newer one',
    });
    await owner.followTemplateVersionLogs(secondVersion.id, () => undefined);

    await page.goto(`${test.url}/templates/uploaded`);
    await page.getByRole('navigation', { name: 'Template' }).getByRole('link', { name: 'Versions' }).click();
    await page.waitForURL(`${test.url}/templates/uploaded/versions`);
    const first = page.locator(`tr[data-version="${firstVersion.name}"]`);
    const second = page.locator('tr[data-version="second"]');
    await second.waitFor();
    assert.match((await first.textContent()) ?? '', /active/);
    assert.doesNotMatch((await second.textContent()) ?? '', /active/);
    assert.match((await second.textContent()) ?? '', /A newer one/);
    assert.equal(await second.getByRole('link', { name: 'Files of second' }).getAttribute('href'), '/templates/uploaded/versions/second');
    assert.equal(await second.getByRole('link', { name: 'Edit second' }).getAttribute('href'), '/templates/uploaded/versions/second/edit');
    // The active version is neither promoted nor archived.
    assert.equal(await first.getByRole('button').count(), 0);

    await second.getByRole('button', { name: 'Promote second' }).click();
    await page.getByRole('status').filter({ hasText: 'second is now the active version.' }).waitFor();
    assert.equal((await uploaded()).active_version_id, secondVersion.id);
    assert.match((await second.textContent()) ?? '', /active/);
    await shot('versions');
  });

  it('archives an old version, hides it, and shows it again behind the toggle', async () => {
    const template = await uploaded();
    const first = page.locator(`tr[data-version="${firstVersion.name}"]`);
    await first.getByRole('button', { name: `Archive ${firstVersion.name}` }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Archived ${firstVersion.name}.` })
      .waitFor();
    const archived = (await owner.templateVersions(template.id, { include_archived: true })).find((v) => v.id === firstVersion.id);
    assert.equal(archived?.archived, true);
    await eventually(async () => assert.equal(await first.count(), 0));

    await page.getByLabel('Show archived versions').check();
    await first.getByRole('button', { name: `Unarchive ${firstVersion.name}` }).waitFor();
    assert.match((await first.textContent()) ?? '', /archived/);
    await shot('versions-archived');
  });

  it('draws the insights of a template whose workspace was built and used', async () => {
    const template = await uploaded();
    test.clock.set(new Date());
    const workspace = await owner.createWorkspace('me', { name: 'dev', template_id: template.id });
    await owner.followWorkspaceBuildLogs(workspace.latest_build.id, () => undefined);
    const built = await owner.workspace(workspace.id);
    assert.equal(built.latest_build.status, 'running');
    const agent = built.latest_build.resources.flatMap((resource) => resource.agents ?? [])[0];
    assert.ok(agent, 'the workspace has an agent');
    await owner.reportWorkspaceUsage(workspace.id, { agent_id: agent.id, app_name: 'ssh' });

    await page.goto(`${test.url}/templates/uploaded/insights`);
    const chart = page.getByRole('img', { name: /^Active users per day/ });
    await chart.waitFor();
    assert.equal(await page.locator('svg[data-bars]').getAttribute('data-bars'), '7');
    const values = await Promise.all((await page.locator('rect.bar-chart-bar').all()).map((bar) => bar.getAttribute('data-value')));
    assert.deepEqual(values, ['0', '0', '0', '0', '0', '0', '1']);
    assert.match((await chart.getAttribute('aria-label')) ?? '', / 1 users$/);
    await page.getByText(/1\s+user in the period/).waitFor();
    assert.match((await page.locator('tr[data-app="ssh"]').textContent()) ?? '', /1m/);
    await page.locator('li[data-user="owner"]').waitFor();
    // The same numbers as a table.
    await page.getByText('Active users per day as a table').click();
    await page.getByRole('rowheader').last().waitFor();
    await shot('insights');

    for (const theme of ['light', 'dark'] as const) {
      await owner.updateUserAppearance({ theme_preference: theme });
      await page.reload();
      await page.locator('svg[data-bars]').waitFor();
      assert.equal(await page.evaluate<string | null>('document.documentElement.dataset.theme'), theme);
      assert.deepEqual(await seriousAxeViolations(page), [], `the insights page in the ${theme} theme`);
      await shot(`insights-${theme}`);
    }
  });

  it('edits the settings and reads them back', async () => {
    const before = await uploaded();
    await page.goto(`${test.url}/templates/uploaded/settings`);
    await page.getByLabel('Display name').fill('Uploaded template');
    await page.getByLabel('Description').fill('Made from an uploaded archive');
    await page.getByRole('textbox', { name: /^Icon/ }).fill('/icon/terminal.svg');
    await page.getByRole('img', { name: 'Icon preview' }).locator('img').waitFor();
    await page.getByLabel('Cancel their workspaces’ builds').uncheck();
    await page.getByLabel('Deprecation message').fill('Use from-example instead.');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();

    const after = await uploaded();
    assert.equal(after.id, before.id);
    assert.equal(after.display_name, 'Uploaded template');
    assert.equal(after.description, 'Made from an uploaded archive');
    assert.equal(after.icon, '/icon/terminal.svg');
    assert.equal(after.allow_user_cancel_workspace_jobs, false);
    assert.equal(after.deprecation_message, 'Use from-example instead.');
    assert.equal(after.deprecated, true);
    await page.locator('.notice-warn').getByText('Use from-example instead.').waitFor();
    await shot('settings');
  });

  it('shows why a template in use cannot be deleted, and deletes one that is not', async () => {
    await page.getByRole('button', { name: 'Delete template' }).click();
    await page.getByRole('button', { name: 'Yes, delete it' }).click();
    await page.getByText('All workspaces must be deleted before a template can be removed.').waitFor();
    // Still there.
    assert.equal((await uploaded()).name, 'uploaded');

    await page.goto(`${test.url}/templates/from-example/settings`);
    await page.getByRole('button', { name: 'Delete template' }).click();
    await page.getByRole('button', { name: 'Yes, delete it' }).click();
    await page.waitForURL(`${test.url}/templates`);
    await expectApiError(owner.templateByName('default', 'from-example'), 404);
    assert.equal((await uploaded()).name, 'uploaded');
    assert.deepEqual(pageErrors, []);
  });

  it('offers a new template only to those who may make one', async () => {
    await page.goto(`${test.url}/templates`);
    await page.getByRole('link', { name: 'New template' }).waitFor();
    await createMember(test, 'alice');
    await browser.context.clearCookies();
    await signInWithPassword(page, test.url, 'alice@example.com', STRONG_PASSWORD);
    await page.goto(`${test.url}/templates`);
    await page.getByRole('heading', { name: 'Templates', level: 1 }).waitFor();
    // The answer to the permission check has come back before the link is looked for.
    await page.waitForLoadState('networkidle');
    assert.equal(await page.getByRole('link', { name: 'New template' }).count(), 0);
  });
});
