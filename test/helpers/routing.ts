// Suppliers, rules and order reads through the public API, for the routing tests.
import { expect } from "vitest";
import { env } from "cloudflare:workers";
import { call, type Credentials } from "./http";
import { exec, seedSupplier, unique } from "./factories";
import { remoteUrl } from "./fake-remote";
import { waitFor } from "./wait";

export async function createSupplier(creds: Credentials, body: Record<string, unknown> = {}) {
  const res = await call("POST", "/api/v1/suppliers", { creds, body: { name: unique("Supplier"), ...body } });
  if (res.status !== 201) throw new Error(`supplier: ${res.status} ${res.text}`);
  // The signing secret is only in the create answer; the rest is the supplier as GET shows it.
  const { webhook_secret: _secret, ...supplier } = res.json;
  return supplier as { id: number; name: string; code: string | null; active: boolean; priority: number };
}

export async function createRule(creds: Credentials, body: Record<string, unknown>) {
  const res = await call("POST", "/api/v1/routing-rules", { creds, body: { name: unique("rule"), conditions: [], ...body } });
  if (res.status !== 201) throw new Error(`rule: ${res.status} ${res.text}`);
  return res.json as { id: number; name: string; priority: number };
}

export const assignTo = (supplierId: number) => ({ type: "assign_supplier", supplier_id: supplierId });

export async function getOrder(creds: Credentials, reference: string) {
  const res = await call("GET", `/api/v1/orders/${reference}`, { creds });
  expect(res.status).toBe(200);
  return res.json;
}

/** Runs matching now, synchronously, through the public endpoint; answers the order JSON. */
export async function matchNow(creds: Credentials, reference: string) {
  const res = await call("POST", `/api/v1/orders/${reference}/match`, { creds });
  expect(res.status).toBe(200);
  return res.json;
}

/** [status, message] of each log entry of a line, oldest first. */
export const logsOf = (line: { logs: { status: string; message: string }[] }) => line.logs.map((l) => [l.status, l.message]);

/** Waits until the queue consumer has seen the order (routed_at set) and returns the order JSON. */
export async function waitRouted(creds: Credentials, reference: string) {
  await waitFor(async () => {
    const row = await env.DB.prepare("SELECT routed_at FROM orders WHERE reference = ?").bind(reference).first<{ routed_at: string | null }>();
    return row?.routed_at ? true : null;
  });
  return getOrder(creds, reference);
}

/** Waits until line `index` of the order has `status`; returns the order JSON. */
export async function waitForLineStatus(creds: Credentials, reference: string, status: string, index = 0) {
  return waitFor(async () => {
    const order = await getOrder(creds, reference);
    return order.order_lines[index].current_status === status ? order : null;
  });
}

/** Every log row of an order, straight from the table (to prove nothing was written). */
export async function logRows(reference: string) {
  const { results } = await env.DB.prepare(
    "SELECT g.* FROM order_line_logs g JOIN orders o ON o.id = g.order_id WHERE o.reference = ? ORDER BY g.id",
  )
    .bind(reference)
    .all();
  return results;
}

export { unique };

/**
 * A rule inserted straight into the table: unlike POST /routing-rules it queues no re-match, so a
 * test can tell which queue message matched a line.
 */
export async function seedRule(
  accountId: number,
  rule: { name?: string; priority: number; match?: "all" | "any"; conditions?: unknown[]; action: unknown; active?: boolean },
) {
  const now = new Date().toISOString();
  const name = rule.name ?? unique("rule");
  const row = await env.DB.prepare(
    `INSERT INTO routing_rules (account_id, name, priority, match, conditions, action, active, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  )
    .bind(accountId, name, rule.priority, rule.match ?? "all", JSON.stringify(rule.conditions ?? []), JSON.stringify(rule.action), rule.active === false ? 0 : 1, now, now)
    .first<{ id: number }>();
  return { id: row!.id, name };
}

/**
 * The decline setting of the pipeline's tests and the benchmark: a pull supplier that gets every
 * line by rule, and a webhook supplier (posting to a fake remote) next in line. Returns both, the
 * webhook's URL and a key of the pull supplier, already used once (its first use writes last_used_at).
 */
export async function pullThenWebhook(creds: Credentials) {
  const first = await seedSupplier(creds.accountId);
  const next = await seedSupplier(creds.accountId);
  const url = remoteUrl("ok");
  await exec("UPDATE suppliers SET channel = 'pull' WHERE id = ?", first.id);
  await exec("UPDATE suppliers SET channel = 'webhook', webhook_url = ?, webhook_secret = 'test-secret' WHERE id = ?", url, next.id);
  await seedRule(creds.accountId, { priority: 10, action: { type: "assign_supplier", supplier_id: first.id } });
  await seedRule(creds.accountId, { priority: 20, action: { type: "assign_supplier", supplier_id: next.id } });
  const key = (await call("POST", `/api/v1/suppliers/${first.id}/keys`, { creds, body: {} })).json.key as string;
  await call("GET", "/api/v1/supplier/orders", { headers: { authorization: `Bearer ${key}` } });
  return { first, next, url, key };
}
