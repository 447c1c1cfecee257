import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium, which the browser tests drive (playwright-core brings no browser of its own). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Why the browser tests cannot run here, or undefined when they can. Where CI asks for them
 * (COVE_REQUIRE_BROWSER=1) a missing browser is a failure, not a skip.
 */
export function browserMissing(): string | undefined {
  if (existsSync(CHROMIUM_PATH)) return undefined;
  if (process.env['COVE_REQUIRE_BROWSER'] === '1') throw new Error(`COVE_REQUIRE_BROWSER=1 but ${CHROMIUM_PATH} is missing`);
  return `${CHROMIUM_PATH} is missing`;
}

/** A headless Chromium with a fresh profile, quiet (no updates, sync or background traffic). */
export interface HeadlessChromium {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export async function launchChromium(viewport: { width: number; height: number }): Promise<HeadlessChromium> {
  const profile = mkdtempSync(join(tmpdir(), 'cove-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    viewport,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Signs `page` in to the dashboard at `baseUrl` with an email and password, and waits for the workspaces list. */
export async function signInWithPassword(page: Page, baseUrl: string, email: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/login`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${baseUrl}/workspaces`);
}
