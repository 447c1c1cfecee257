// xterm.js writes its theme and cell sizes into <style> elements it creates, which the daemon's
// Content-Security-Policy (`style-src 'self'`, no inline styles) refuses. The same rules set
// through constructed style sheets are CSSOM, which the policy allows. So while the terminal
// builds its DOM, the style elements it asks for are inert <template> elements (which keep text
// but never apply it, so the policy has nothing to refuse), and their text is mirrored into
// adopted style sheets, kept in step as xterm rewrites it.

/** Marks the inert stand-ins for style elements. */
const STAND_IN = 'data-inline-style';
const SELECTOR = `style, template[${STAND_IN}]`;

/** Runs `build` with `document.createElement('style')` handing out inert stand-ins. */
export function withInertStyleElements<T>(build: () => T): T {
  const original = Object.getOwnPropertyDescriptor(document, 'createElement');
  const create = Document.prototype.createElement;
  document.createElement = function (this: Document, tagName: string, options?: ElementCreationOptions) {
    if (tagName.toLowerCase() !== 'style') return create.call(this, tagName, options);
    const standIn = create.call(this, 'template', options);
    standIn.setAttribute(STAND_IN, '');
    return standIn;
  } as typeof document.createElement;
  try {
    return build();
  } finally {
    if (original) Object.defineProperty(document, 'createElement', original);
    else delete (document as { createElement?: unknown }).createElement;
  }
}

/** Applies the text of every style element (or stand-in) under `root` through adopted style sheets, until the returned stop. */
export function adoptInlineStyles(root: HTMLElement): () => void {
  const mirrors = new Map<Element, CSSStyleSheet>();
  /** Every sheet made here, so stale ones can be told apart from the page's own. */
  const made = new WeakSet<CSSStyleSheet>();
  const sync = () => {
    for (const [element] of mirrors) if (!root.contains(element)) mirrors.delete(element);
    for (const element of root.querySelectorAll(SELECTOR)) {
      let sheet = mirrors.get(element);
      if (!sheet) {
        sheet = new CSSStyleSheet();
        made.add(sheet);
        mirrors.set(element, sheet);
      }
      sheet.replaceSync(element.textContent ?? '');
    }
    document.adoptedStyleSheets = [...document.adoptedStyleSheets.filter((sheet) => !made.has(sheet)), ...mirrors.values()];
  };
  const isStyle = (node: Node | null) => node instanceof Element && node.matches(SELECTOR);
  const observer = new MutationObserver((mutations) => {
    // The renderer rewrites rows all the time; only changes to style elements matter here.
    const touchesStyle = mutations.some(
      (mutation) =>
        isStyle(mutation.target) ||
        isStyle(mutation.target.parentNode) ||
        [...mutation.addedNodes, ...mutation.removedNodes].some((node) => isStyle(node)),
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
