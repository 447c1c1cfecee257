/**
 * A small stand-in for a browser over plain fetch: a cookie jar that follows the cookie rules a
 * sign-in relies on (per host, whatever the port, by path; Max-Age=0 deletes; Expires is not read,
 * since a daemon under test runs on a clock of its own), redirects followed
 * one hop at a time so a test can look at each, and HTML forms submitted as a user would.
 */

interface StoredCookie {
  readonly value: string;
  readonly path: string;
}

/** One answer, with its body read. */
export interface Page {
  readonly url: string;
  readonly status: number;
  readonly headers: Headers;
  readonly body: string;
  /** The redirect target, resolved against the page's URL, if this is a redirect. */
  readonly location: string | undefined;
}

export class Browser {
  /** host → cookie name → cookie. Browsers do not separate cookies by port. */
  readonly #jar = new Map<string, Map<string, StoredCookie>>();

  /**
   * Submits the first form of `page` (its hidden fields, then `fields`) and follows the redirects
   * that stay on `origin`: a user at a provider's pages, stopping where the provider sends the
   * browser elsewhere. Every hop is returned.
   */
  async submitStayingOn(page: Page, fields: Record<string, string>, origin: string): Promise<Page[]> {
    const form = /<form[^>]*action="([^"]*)"/i.exec(page.body);
    if (!form) throw new Error(`no form on ${page.url}`);
    const hidden: Record<string, string> = {};
    for (const input of page.body.matchAll(/<input[^>]*type="hidden"[^>]*>/gi)) {
      const name = /name="([^"]*)"/.exec(input[0])?.[1];
      const value = /value="([^"]*)"/.exec(input[0])?.[1];
      if (name) hidden[name] = value ?? '';
    }
    const hops: Page[] = [];
    let current = await this.request(new URL(form[1] ?? '', page.url).toString(), { form: { ...hidden, ...fields } });
    hops.push(current);
    while (current.location !== undefined && new URL(current.location).origin === origin) {
      current = await this.request(current.location);
      hops.push(current);
    }
    return hops;
  }

  /** The value of a cookie as this browser would send it to `url`. */
  cookie(url: string, name: string): string | undefined {
    const target = new URL(url);
    const cookie = this.#jar.get(target.hostname)?.get(name);
    return cookie && target.pathname.startsWith(cookie.path) ? cookie.value : undefined;
  }

  /** Sets a cookie by hand, as another tab of the same browser might have. */
  setCookie(url: string, name: string, value: string, path = '/'): void {
    const host = new URL(url).hostname;
    const cookies = this.#jar.get(host) ?? new Map<string, StoredCookie>();
    cookies.set(name, { value, path });
    this.#jar.set(host, cookies);
  }

  /** One request, no redirects followed. */
  async request(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
  ): Promise<Page> {
    const target = new URL(url);
    const headers: Record<string, string> = { accept: 'text/html,application/xhtml+xml', ...init.headers };
    const cookies = [...(this.#jar.get(target.hostname) ?? new Map<string, StoredCookie>()).entries()]
      .filter(([, cookie]) => target.pathname.startsWith(cookie.path))
      .map(([name, cookie]) => `${name}=${cookie.value}`);
    if (cookies.length > 0) headers['cookie'] = cookies.join('; ');
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(init.form).toString();
    }
    const response = await fetch(target, {
      method: init.method ?? (body ? 'POST' : 'GET'),
      headers,
      redirect: 'manual',
      ...(body ? { body } : {}),
    });
    for (const line of response.headers.getSetCookie()) this.#store(target, line);
    const location = response.headers.get('location');
    return {
      url: target.toString(),
      status: response.status,
      headers: response.headers,
      body: await response.text(),
      location: location ? new URL(location, target).toString() : undefined,
    };
  }

  /** Follows redirects from `url` until a page that is not one; every hop is returned, last is the page. */
  async follow(
    url: string,
    init: { method?: string; form?: Record<string, string>; headers?: Record<string, string> } = {},
    maxHops = 20,
  ): Promise<Page[]> {
    const hops: Page[] = [];
    let page = await this.request(url, init);
    hops.push(page);
    while (page.location !== undefined && [301, 302, 303, 307, 308].includes(page.status)) {
      if (hops.length > maxHops) throw new Error(`more than ${maxHops} redirects from ${url}`);
      page = await this.request(page.location, { ...(init.headers ? { headers: init.headers } : {}) });
      hops.push(page);
    }
    return hops;
  }

  /** Submits the first form of a page with its hidden fields and the given ones, then follows redirects. */
  async submitForm(page: Page, fields: Record<string, string>): Promise<Page[]> {
    const form = /<form[^>]*action="([^"]*)"[^>]*>([\s\S]*?)<\/form>/i.exec(page.body);
    if (!form) throw new Error(`no form on ${page.url}:\n${page.body.slice(0, 500)}`);
    const hidden: Record<string, string> = {};
    for (const input of (form[2] ?? '').matchAll(/<input[^>]*>/gi)) {
      const tag = input[0];
      const name = /name="([^"]*)"/.exec(tag)?.[1];
      const value = /value="([^"]*)"/.exec(tag)?.[1];
      if (name && /type="hidden"/i.test(tag)) hidden[name] = decodeEntities(value ?? '');
    }
    const action = new URL(decodeEntities(form[1] ?? ''), page.url).toString();
    return this.follow(action, { method: 'POST', form: { ...hidden, ...fields } });
  }

  #store(target: URL, line: string): void {
    const [pair = '', ...attributes] = line.split(';').map((part) => part.trim());
    const separator = pair.indexOf('=');
    const name = pair.slice(0, separator);
    const value = pair.slice(separator + 1);
    let path = '/';
    let expired = false;
    for (const attribute of attributes) {
      const [key = '', attributeValue = ''] = attribute.split('=');
      if (key.toLowerCase() === 'path') path = attributeValue;
      if (key.toLowerCase() === 'max-age' && Number(attributeValue) <= 0) expired = true;
    }
    const cookies = this.#jar.get(target.hostname) ?? new Map<string, StoredCookie>();
    if (expired) cookies.delete(name);
    else cookies.set(name, { value, path });
    this.#jar.set(target.hostname, cookies);
  }
}

function decodeEntities(text: string): string {
  return text
    .replace(/&amp;/g, '&')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}
