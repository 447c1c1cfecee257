import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { createTar, readTar } from '../../src/lib/archive/index.js';
import type { CoveClient } from '../../src/sdk/client.js';
import type { Template, TemplateVersion } from '../../src/sdk/wire/index.js';
import { browserMissing, launchChromium, type HeadlessChromium, signInWithPassword } from '../helpers/chromium.js';
import { THE_SQLITE_RUN_COVERS_IT } from '../helpers/databases.js';
import { createEchoTemplate } from '../helpers/echo-template.js';
import { createOwner, STRONG_PASSWORD, startTestDaemon, type TestDaemon } from '../helpers/test-daemon.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SCREENSHOTS = join(ROOT, 'test-output/dashboard/editor');

// A template version's files and the editor in a real Chromium against a daemon serving the
// checkout's built dashboard: the files are read from the version's archive, edited in CodeMirror,
// built into a new version whose log is followed, and published; what the API then holds (the
// active version, and the edited bytes in its archive) is read back through the SDK.
describe('the template version pages and editor in a real browser', { skip: THE_SQLITE_RUN_COVERS_IT || browserMissing() }, () => {
  let test: TestDaemon;
  let owner: CoveClient;
  let template: Template;
  let first: TemplateVersion;
  let browser: HeadlessChromium;
  let page: Page;
  const pageErrors: string[] = [];
  /** What the console said about refused scripts or styles: CodeMirror's styles must arrive without inline style elements. */
  const policyViolations: string[] = [];

  /** The text of the open CodeMirror editor. */
  const editorText = () => page.locator('.code-editor .cm-content').innerText();

  /** The files of a stored archive, path to text. */
  const filesOf = async (fileId: string): Promise<Map<string, string>> => {
    const members = await readTar(await owner.downloadFile(fileId));
    return new Map(
      members.filter((member) => member.entry.type === 'file').map((member) => [member.entry.path, member.data.toString('utf8')]),
    );
  };

  before(async () => {
    assert.ok(existsSync(join(ROOT, 'dist/web/index.html')), 'the dashboard is built (node scripts/build.mjs)');
    await mkdir(SCREENSHOTS, { recursive: true });
    test = await startTestDaemon({ flags: { provisionerDaemons: '1' } });
    owner = await createOwner(test);
    ({ template, version: first } = await createEchoTemplate(
      owner,
      'edited',
      {},
      { files: { 'README.md': '# Edited\n\nA template to edit.\n', 'scripts/start.sh': '#!/bin/sh\necho starting up\n' } },
    ));

    browser = await launchChromium({ width: 1280, height: 900 });
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.setDefaultTimeout(20_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) policyViolations.push(message.text());
    });
    await signInWithPassword(page, test.url, 'owner@example.com', STRONG_PASSWORD);
  });

  after(async () => {
    await browser?.close();
    await test?.close();
  });

  it("shows a version's details and its files in a read-only viewer", async () => {
    await page.goto(`${test.url}/templates/edited/versions/${first.name}`);
    await page.getByRole('heading', { name: `Version ${first.name}`, level: 1 }).waitFor();
    assert.equal(await page.title(), `Version ${first.name} of edited · Cove`);
    await page.getByRole('navigation', { name: 'Files' }).getByRole('button', { name: 'start.sh' }).click();
    await page.getByRole('heading', { name: 'scripts/start.sh' }).waitFor();
    assert.match(await editorText(), /echo starting up/);
    assert.equal(await page.locator('.code-editor .cm-content').getAttribute('aria-readonly'), 'true');
    // CodeMirror's own layout applies (its base theme puts the line numbers beside the text, not above it).
    assert.equal(await page.evaluate('getComputedStyle(document.querySelector(".code-editor .cm-editor")).display'), 'flex');
    // Typing into the viewer changes nothing.
    await page.locator('.code-editor .cm-content').click();
    await page.keyboard.type('typed');
    assert.doesNotMatch(await editorText(), /typed/);
    // Highlighted by its name: the shell mode marks the echo built-in.
    assert.ok((await page.locator('.code-editor .cm-content [class*="tok-"]').count()) > 0, 'the shell script is highlighted');
    // By keyboard: Tab leaves the viewer (it does not indent), and Enter on a file's button opens it.
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate('!document.activeElement || !document.activeElement.closest(".code-editor")'), true);
    await page.getByRole('navigation', { name: 'Files' }).getByRole('button', { name: 'README.md' }).focus();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'README.md', exact: true }).waitFor();
    assert.match(await editorText(), /A template to edit\./);
    await page.screenshot({ path: join(SCREENSHOTS, 'version.png'), fullPage: true });
  });

  it('edits, adds, renames and deletes files, builds them with the log shown, and publishes the active version', async () => {
    await page.getByRole('link', { name: 'Edit files' }).click();
    await page.waitForURL(`${test.url}/templates/edited/versions/${first.name}/edit`);
    await page.getByRole('heading', { name: 'Edit edited', level: 1 }).waitFor();

    // Edit a file in CodeMirror.
    await page.getByRole('navigation', { name: 'Files' }).getByRole('button', { name: 'start.sh' }).click();
    await page.getByRole('textbox', { name: 'Edit the contents of scripts/start.sh' }).click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('echo edited in the browser\n');
    assert.match(await editorText(), /echo edited in the browser/);
    await page.getByText('Unpublished changes.').waitFor();

    // Add a file and write into it, rename it, and delete another.
    await page.getByRole('button', { name: 'New file' }).click();
    await page.getByLabel('Path of the new file').fill('notes/todo.txt');
    await page.getByRole('button', { name: 'Add file' }).click();
    await page.getByRole('heading', { name: 'notes/todo.txt' }).waitFor();
    await page.getByRole('textbox', { name: 'Edit the contents of notes/todo.txt' }).click();
    await page.keyboard.type('remember the milk');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByLabel('New path of notes/todo.txt').fill('notes/done.txt');
    await page.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('heading', { name: 'notes/done.txt' }).waitFor();
    assert.equal(await editorText(), 'remember the milk');
    await page.getByRole('navigation', { name: 'Files' }).getByRole('button', { name: 'README.md' }).click();
    await page.getByRole('button', { name: 'Delete', exact: true }).click();
    await page.getByRole('group', { name: 'Delete README.md?' }).getByRole('button', { name: 'Delete' }).click();
    assert.equal(await page.getByRole('navigation', { name: 'Files' }).getByRole('button', { name: 'README.md' }).count(), 0);
    // A path that is taken is refused, with the reason.
    await page.getByRole('button', { name: 'New file' }).click();
    await page.getByLabel('Path of the new file').fill('scripts/start.sh');
    await page.getByRole('button', { name: 'Add file' }).click();
    await page.getByRole('alert').filter({ hasText: 'There is already a file named scripts/start.sh.' }).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();
    await page.screenshot({ path: join(SCREENSHOTS, 'editor.png'), fullPage: true });

    // Build: a new version of the template, its log followed, and the publish form once it succeeded.
    await page.getByRole('button', { name: 'Build', exact: true }).click();
    await page.getByRole('heading', { name: /^Publish / }).waitFor();
    const log = page.getByRole('region', { name: /^Log of / });
    await log.waitFor();
    assert.match(await log.innerText(), /succeeded/i);
    const versions = await owner.templateVersions(template.id);
    assert.equal(versions.length, 2);
    const built = versions.find((version) => version.id !== first.id)!;
    assert.equal(built.job.status, 'succeeded');
    assert.equal((await owner.template(template.id)).active_version_id, first.id, 'a build alone does not change the active version');
    await page.screenshot({ path: join(SCREENSHOTS, 'built.png'), fullPage: true });

    await page.getByLabel('Version name').fill('edited-in-browser');
    await page.getByLabel(/^Message/).fill('Edited in the browser');
    await page.getByRole('button', { name: 'Publish' }).click();
    await page.waitForURL(`${test.url}/templates/edited/versions/edited-in-browser`);
    await page.getByRole('heading', { name: /^Version edited-in-browser/, level: 1 }).waitFor();

    const active = await owner.templateVersion((await owner.template(template.id)).active_version_id);
    assert.equal(active.id, built.id);
    assert.equal(active.name, 'edited-in-browser');
    assert.equal(active.message, 'Edited in the browser');
    const files = await filesOf(active.job.file_id);
    assert.deepEqual([...files.keys()].sort(), ['echo.json', 'notes/done.txt', 'scripts/start.sh']);
    assert.equal(files.get('scripts/start.sh'), '#!/bin/sh\necho starting up\necho edited in the browser\n');
    assert.equal(files.get('notes/done.txt'), 'remember the milk');
    assert.equal(files.get('echo.json'), '{}');
  });

  it('shows a failed build its error, keeps the editor, and asks before leaving unpublished changes', async () => {
    await page.getByRole('link', { name: 'Edit files' }).click();
    await page.waitForURL(`${test.url}/templates/edited/versions/edited-in-browser/edit`);
    await page.getByRole('navigation', { name: 'Files' }).getByRole('button', { name: 'echo.json' }).click();
    await page.getByRole('textbox', { name: 'Edit the contents of echo.json' }).click();
    await page.keyboard.press('Control+A');
    await page.keyboard.type('{ not json');
    await page.getByRole('button', { name: 'Build', exact: true }).click();

    const failure = page.getByRole('alert').filter({ hasText: 'The build failed.' });
    await failure.waitFor();
    assert.match(await failure.innerText(), /echo\.json: not valid JSON/);
    assert.equal(await page.getByRole('heading', { name: /^Publish / }).count(), 0);
    assert.equal(await editorText(), '{ not json');
    const versions = await owner.templateVersions(template.id);
    assert.equal(versions.length, 3);
    assert.equal(versions.find((version) => version.job.status === 'failed')?.job.error?.includes('not valid JSON'), true);
    assert.equal((await owner.templateVersion((await owner.template(template.id)).active_version_id)).name, 'edited-in-browser');
    await page.screenshot({ path: join(SCREENSHOTS, 'failed.png'), fullPage: true });

    // Leaving with unpublished changes asks first; declining stays on the editor.
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.message());
      void dialog.dismiss();
    });
    await page.getByRole('link', { name: 'Templates', exact: true }).first().click();
    assert.equal(asked.length, 1);
    assert.match(asked[0]!, /not published/);
    assert.equal(new URL(page.url()).pathname, '/templates/edited/versions/edited-in-browser/edit');
    assert.equal(await editorText(), '{ not json');
  });

  it('refuses to open an archive over the size limit, with a message', async () => {
    const { id } = await owner.uploadFile(await createTar({ 'echo.json': '{}', 'big.bin': randomBytes(11 * 1024 * 1024) }));
    const big = await owner.createTemplateVersion('default', { template_id: template.id, file_id: id, name: 'too-big' });
    await owner.followTemplateVersionLogs(big.id, () => undefined);
    // Loading another page over the editor's unpublished changes asks first (the browser's own question).
    const asked: string[] = [];
    page.once('dialog', (dialog) => {
      asked.push(dialog.type());
      void dialog.accept();
    });
    await page.goto(`${test.url}/templates/edited/versions/too-big`);
    assert.deepEqual(asked, ['beforeunload']);
    await page.getByRole('heading', { name: 'Version too-big', level: 1 }).waitFor();
    await page.getByRole('alert').filter({ hasText: 'more than the 10 MiB the dashboard opens' }).waitFor();
    assert.equal(await page.locator('.code-editor').count(), 0);
    assert.deepEqual(pageErrors, []);
    assert.deepEqual(policyViolations, []);
  });
});
