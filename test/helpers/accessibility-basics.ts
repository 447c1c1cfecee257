import type { Page } from 'playwright-core';

/**
 * Runs in the page (a string: the tests are type-checked without the DOM's types). Finds the
 * serious faults a DOM walk can see: a control, link or image with no accessible name, a
 * duplicate id, a reference (label for, aria-labelledby, aria-describedby, aria-controls) to an
 * id that is not there. What is not shown is skipped, as assistive technology skips it.
 */
const FIND_FAULTS = `(() => {
  const faults = [];
  const describe = (element) =>
    '<' + element.tagName.toLowerCase() + (element.id ? ' id="' + element.id + '"' : '') +
    (element.className && typeof element.className === 'string' ? ' class="' + element.className + '"' : '') + '>';
  const shown = (element) => {
    const box = element.getBoundingClientRect();
    return box.width > 0 || box.height > 0;
  };
  const textOf = (id) => (document.getElementById(id)?.textContent ?? '').trim();
  const named = (element) => {
    if ((element.getAttribute('aria-label') ?? '').trim()) return true;
    const labelledBy = element.getAttribute('aria-labelledby');
    if (labelledBy && labelledBy.split(/\\s+/).some((id) => textOf(id) !== '')) return true;
    if ((element.getAttribute('title') ?? '').trim()) return true;
    if (element.matches('input, select, textarea')) return [...(element.labels ?? [])].some((label) => label.textContent.trim() !== '');
    if (element.matches('img')) return element.hasAttribute('alt');
    return (element.textContent ?? '').trim() !== '';
  };
  for (const element of document.querySelectorAll('input:not([type=hidden]), select, textarea, button, a[href], img, summary')) {
    if (shown(element) && !named(element)) faults.push('no accessible name: ' + describe(element));
  }
  const seen = new Map();
  for (const element of document.querySelectorAll('[id]')) seen.set(element.id, (seen.get(element.id) ?? 0) + 1);
  for (const [id, count] of seen) if (count > 1) faults.push('duplicate id "' + id + '" (' + count + ' times)');
  for (const attribute of ['aria-labelledby', 'aria-describedby', 'aria-controls']) {
    for (const element of document.querySelectorAll('[' + attribute + ']')) {
      // As assistive technology does, what is not shown (a closed dialog) is skipped.
      if (!shown(element)) continue;
      for (const id of (element.getAttribute(attribute) ?? '').split(/\\s+/).filter(Boolean)) {
        if (!document.getElementById(id)) faults.push(attribute + ' names a missing id "' + id + '": ' + describe(element));
      }
    }
  }
  for (const label of document.querySelectorAll('label[for]')) {
    if (!document.getElementById(label.getAttribute('for'))) faults.push('label for a missing id: ' + describe(label));
  }
  return faults;
})()`;

/** The accessibility faults of the page as it is now, one line each; none on a sound page. */
export async function accessibilityFaults(page: Page): Promise<string[]> {
  return (await page.evaluate(FIND_FAULTS)) as string[];
}
