import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** axe-core's browser build: evaluated in the page through the debugging protocol, which the page's CSP does not govern. */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * Runs axe-core in the page (a string: the tests are type-checked without the DOM's types) against
 * what the dashboard is held to, WCAG 2.1 A and AA, and keeps the serious and critical violations,
 * each named with its first three elements; `detailed` adds axe's help and failure summaries.
 */
function axeRun(detailed: boolean): string {
  const describe = detailed
    ? `violation.impact + ' ' + violation.id + ' (' + violation.nodes.length + '): ' + violation.help + ': ' +
      violation.nodes.slice(0, 3).map((node) => node.target.join(' ') + ' ' + (node.failureSummary || '').replace(/\\s+/g, ' ').slice(0, 160)).join(' | ')`
    : `violation.id + ': ' + violation.nodes.slice(0, 3).map((node) => node.target.join(' ')).join(' | ')`;
  return `axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] })
  .then((result) => result.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ${describe}))`;
}

/** What axe-core finds serious or critical on the page as it is drawn now; axe is loaded into the page when it is not there yet. */
export async function seriousAxeViolations(page: Page, options: { readonly detailed?: boolean } = {}): Promise<string[]> {
  if (!(await page.evaluate('typeof axe !== "undefined"'))) await page.evaluate(AXE_SOURCE);
  return page.evaluate<string[]>(axeRun(options.detailed === true));
}
