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

/** A value once it stops changing (two reads 100 ms apart agree): the pipeline is done with it. */
export async function settled<T>(read: () => Promise<T>, timeoutMs = 5000): Promise<T> {
  const started = Date.now();
  let last = await read();
  while (Date.now() - started < timeoutMs) {
    await new Promise((r) => setTimeout(r, 100));
    const now = await read();
    if (JSON.stringify(now) === JSON.stringify(last)) return now;
    last = now;
  }
  throw new Error("settled timed out: the value kept changing");
}
