/** A URL setting as the reference's clients read it: the parts of the URL, empty when unset. */
export interface UrlObject {
  readonly scheme: string;
  readonly opaque: string;
  readonly user: null;
  readonly host: string;
  readonly path: string;
  readonly rawPath: string;
  readonly omitHost: boolean;
  readonly forceQuery: boolean;
  readonly rawQuery: string;
  readonly fragment: string;
  readonly rawFragment: string;
}

/** The parts of `text`; a host pattern without a scheme (`*.cove.example.com`) is all host. */
export function urlObject(text: string): UrlObject {
  const empty: UrlObject = {
    scheme: '',
    opaque: '',
    user: null,
    host: '',
    path: '',
    rawPath: '',
    omitHost: false,
    forceQuery: false,
    rawQuery: '',
    fragment: '',
    rawFragment: '',
  };
  if (text === '') return empty;
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return { ...empty, host: text };
  const url = new URL(text);
  return {
    ...empty,
    scheme: url.protocol.replace(/:$/, ''),
    host: url.host,
    // Stored URLs have no trailing slash, so a bare `/` is no path at all, as the reference parses it.
    path: url.pathname === '/' ? '' : url.pathname,
    rawQuery: url.search.replace(/^\?/, ''),
    fragment: url.hash.replace(/^#/, ''),
  };
}
