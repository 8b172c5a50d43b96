/** Polls until `check` returns a value (the queue consumer runs asynchronously in workerd). */
export async function waitFor<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 8000): Promise<T> {
  const started = Date.now();
  let last: unknown;
  while (Date.now() - started < timeoutMs) {
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      last = error;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`waitFor timed out${last ? `: ${String(last)}` : ""}`);
}
