import { BlockList, isIP } from 'node:net';
import { OptionError } from './options/option-error.js';
import type { ProxyValues } from './options/proxy.js';

/** A header field name as HTTP allows it (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Which reverse proxies are believed about a request's client, and how: the peer must be inside
 * one of the trusted networks, and then the first trusted header that names a usable address
 * wins. X-Forwarded-For is read from the right, skipping the hops that are themselves trusted
 * proxies, so a client cannot choose its address by sending a chain of its own: a trusted proxy
 * appends the peer it saw, and that is the rightmost address not ours.
 */
export class TrustedProxies {
  readonly #origins: BlockList;
  /** Lower-cased, as Node keys `request.headers`. */
  readonly #headers: readonly string[];

  private constructor(origins: BlockList, headers: readonly string[]) {
    this.#origins = origins;
    this.#headers = headers;
  }

  /**
   * Reads and checks the options; throws OptionError naming the bad entry. Returns undefined
   * when either list is empty: then no header is ever believed, and the peer is the client.
   */
  static fromOptions(values: ProxyValues): TrustedProxies | undefined {
    const headers = values.proxyTrustedHeaders.map((name) => {
      if (!HEADER_NAME.test(name)) throw new OptionError(`--proxy-trusted-headers: "${name}" is not a header name`);
      return name.toLowerCase();
    });
    const origins = new BlockList();
    for (const text of values.proxyTrustedOrigins) addNetwork(origins, text);
    if (headers.length === 0 || values.proxyTrustedOrigins.length === 0) return undefined;
    return new TrustedProxies(origins, headers);
  }

  /** Whether an address (a peer or a hop of X-Forwarded-For) is one of the trusted proxies. */
  trusts(address: string): boolean {
    const plain = withoutMappedPrefix(address);
    const family = isIP(plain);
    return family !== 0 && this.#origins.check(plain, family === 4 ? 'ipv4' : 'ipv6');
  }

  /** The client of a request that arrived from `peer` with `headers`. */
  clientAddress(peer: string, headers: Readonly<Record<string, string | string[] | undefined>>): string {
    if (!this.trusts(peer)) return peer;
    for (const name of this.#headers) {
      const value = headers[name];
      if (value === undefined) continue;
      const text = Array.isArray(value) ? value.join(',') : value;
      const address = name === 'x-forwarded-for' ? this.#fromChain(text) : addressIn(text.split(',')[0] ?? '');
      if (address !== undefined) return address;
    }
    return peer;
  }

  /** The rightmost hop that is not a trusted proxy; the leftmost hop if all are. */
  #fromChain(chain: string): string | undefined {
    const hops = chain.split(',');
    let last: string | undefined;
    for (let index = hops.length - 1; index >= 0; index--) {
      const address = addressIn(hops[index] ?? '');
      // What lies left of an unreadable hop was not vouched for by anyone we trust.
      if (address === undefined) return last;
      if (!this.trusts(address)) return address;
      last = address;
    }
    return last;
  }
}

/** Adds one CIDR to the list, or refuses it. */
function addNetwork(list: BlockList, text: string): void {
  const refuse = (): never => {
    throw new OptionError(`--proxy-trusted-origins: "${text}" is not a network such as 192.168.1.0/24 or fd00::/8`);
  };
  const match = /^([^/]+)\/(\d{1,3})$/.exec(text.trim());
  if (match === null) return refuse();
  const family = isIP(match[1] ?? '');
  const prefix = Number(match[2]);
  if (family === 0 || prefix > (family === 4 ? 32 : 128)) return refuse();
  list.addSubnet(match[1] ?? '', prefix, family === 4 ? 'ipv4' : 'ipv6');
}

/** The address in one header entry, without a port or brackets; undefined when it holds none. */
function addressIn(entry: string): string | undefined {
  let text = entry.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text);
  if (bracketed) text = bracketed[1] ?? '';
  else if (/^[\d.]+:\d+$/.test(text)) text = text.slice(0, text.indexOf(':'));
  text = withoutMappedPrefix(text);
  return isIP(text) === 0 ? undefined : text;
}

/** `::ffff:10.0.0.1` is the IPv4 address 10.0.0.1, as a dual-stack socket reports it. */
function withoutMappedPrefix(address: string): string {
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(address) ? address.slice(7) : address;
}
