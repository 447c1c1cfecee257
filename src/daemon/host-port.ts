/** Splits `host:port` (`[::1]:80`, `:3000`, `3000`) for a listener; throws naming `flag` when the port is not one. */
export function splitHostPort(address: string, flag: string): [string, number] {
  const index = address.lastIndexOf(':');
  const host = index <= 0 ? '127.0.0.1' : address.slice(0, index).replace(/^\[|\]$/g, '');
  const port = Number(index < 0 ? address : address.slice(index + 1));
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`${flag} "${address}" has no valid port`);
  return [host, port];
}
