/** Query parameters whose values are credentials: session and API tokens, signed app tokens, keys. */
const SECRET_PARAMETER = /token|key|secret|password|passcode|signature|^code$|^state$/i;

/**
 * A request URL with the values of credential-bearing query parameters replaced, for logs: browsers
 * and WebSocket clients pass the session token as `?service_session_token=…`.
 */
export function redactUrl(url: string): string {
  const query = url.indexOf('?');
  if (query === -1) return url;
  const pairs = url
    .slice(query + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // A malformed name is logged as sent; only its value can be a secret.
      }
      return equals !== -1 && SECRET_PARAMETER.test(decoded) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, query)}?${pairs.join('&')}`;
}
