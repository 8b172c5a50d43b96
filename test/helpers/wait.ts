import { env } from "cloudflare:workers";

/**
 * Polls until `check` returns a value (the queue consumer runs asynchronously in workerd). The
 * default bound is generous: it only limits how long a test waits for a condition that must come
 * true, and on the shared two-core machine the queue's batches swing 2-4x with other suites' load.
 */
export async function waitFor<T>(check: () => Promise<T | undefined | null | false>, timeoutMs = 30_000): Promise<T> {
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

/**
 * What the pipeline still owes the account, from the durable marks it keeps in D1 (the same ones
 * the sweeper reads): orders to route (routed_at null, not parked), sends queued or under a lease
 * (of orders that are not held by a block), a requested re-match, unpublished events, webhook
 * deliveries not yet final, and shop write-backs a live connection still owes (not held up by a parked one). Zero can only be true once that work is really done.
 */
export async function pipelineBacklog(accountId: number): Promise<Record<string, number>> {
  const row = await env.DB.prepare(
    `SELECT
      (SELECT count(*) FROM orders WHERE account_id = ?1 AND routed_at IS NULL AND parked_at IS NULL) AS orders,
      (SELECT count(*) FROM dispatches d JOIN orders o ON o.id = d.order_id
        WHERE d.account_id = ?1 AND (d.status = 'sending' OR (d.status = 'queued' AND o.blocked = 0))) AS dispatches,
      (SELECT count(*) FROM accounts WHERE id = ?1 AND rematch_requested_at IS NOT NULL) AS rematch,
      (SELECT count(*) FROM events WHERE account_id = ?1 AND published_at IS NULL) AS events,
      (SELECT count(*) FROM webhook_deliveries WHERE account_id = ?1 AND status IN ('pending', 'delivering')) AS deliveries,
      (SELECT count(*) FROM shop_write_backs w JOIN shop_connections c ON c.id = w.connection_id AND c.active = 1 AND c.deleted_at IS NULL
        WHERE w.account_id = ?1 AND w.status IN ('pending', 'delivering')
          AND NOT EXISTS (SELECT 1 FROM shop_write_backs b WHERE b.order_id = w.order_id AND b.connection_id = w.connection_id AND b.status = 'failed')) AS write_backs`,
  )
    .bind(accountId)
    .first<Record<string, number>>();
  return row!;
}

/** Waits until the pipeline owes the account nothing (pipelineBacklog all zero). */
export async function pipelineIdle(accountId: number, timeoutMs = 30_000): Promise<void> {
  let last: Record<string, number> = {};
  try {
    await waitFor(async () => {
      last = await pipelineBacklog(accountId);
      return Object.values(last).every((n) => n === 0);
    }, timeoutMs);
  } catch {
    throw new Error(`pipelineIdle timed out; still owed: ${JSON.stringify(last)}`);
  }
}
