/**
 * Runs `check` until it stops throwing, for what the daemon or an agent does in the background;
 * past `timeoutMs` the last failure is thrown.
 */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000, pollMs = 25): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }
  }
}
