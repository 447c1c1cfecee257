// xterm.js writes its theme and cell sizes into <style> elements it creates, which the daemon's
// Content-Security-Policy (`style-src 'self'`, no inline styles) keeps from applying. The same
// rules set through constructed style sheets are CSSOM, which the policy allows: this mirrors
// every <style> under `root` into one, and keeps them in step as xterm rewrites them.

export function adoptInlineStyles(root: HTMLElement): () => void {
  const mirrors = new Map<HTMLStyleElement, CSSStyleSheet>();
  /** Every sheet this mirror ever made, so stale ones can be told apart from the page's own. */
  const made = new WeakSet<CSSStyleSheet>();
  const sync = () => {
    for (const [style] of mirrors) if (!root.contains(style)) mirrors.delete(style);
    for (const style of root.querySelectorAll('style')) {
      let sheet = mirrors.get(style);
      if (!sheet) {
        sheet = new CSSStyleSheet();
        made.add(sheet);
        mirrors.set(style, sheet);
      }
      sheet.replaceSync(style.textContent ?? '');
    }
    document.adoptedStyleSheets = [...document.adoptedStyleSheets.filter((sheet) => !made.has(sheet)), ...mirrors.values()];
  };
  const observer = new MutationObserver((mutations) => {
    // The renderer rewrites rows all the time; only changes to style elements matter here.
    const touchesStyle = mutations.some(
      (mutation) =>
        mutation.target instanceof HTMLStyleElement ||
        mutation.target.parentNode instanceof HTMLStyleElement ||
        [...mutation.addedNodes, ...mutation.removedNodes].some((node) => node instanceof HTMLStyleElement),
    );
    if (touchesStyle) sync();
  });
  observer.observe(root, { childList: true, subtree: true, characterData: true });
  sync();
  return () => {
    observer.disconnect();
    document.adoptedStyleSheets = document.adoptedStyleSheets.filter((sheet) => !made.has(sheet));
  };
}
