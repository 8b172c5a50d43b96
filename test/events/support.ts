// Shared pieces of the webhook tests: subscribing, reading deliveries, and checking a signature
// the way a shop would, with plain WebCrypto (not the service's own verifySignature).
import { env } from "cloudflare:workers";
import { expect } from "vitest";
import type { Credentials } from "../helpers/http";
import { call } from "../helpers/http";
import { remoteUrl } from "../helpers/fake-remote";
import { waitFor } from "../helpers/wait";

export const ALL_EVENTS = ["order.created", "order.blocked", "order_line.status_changed", "order_line.shipped", "order.completed"];
export const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);
export const EVENT_ID = /^evt_[0-9a-f]{24}$/;

export async function subscribe(creds: Credentials, scenario: string, events: string[] = ALL_EVENTS) {
  const url = remoteUrl(scenario);
  const res = await call("POST", "/api/v1/webhooks", { creds, body: { url, events } });
  if (res.status !== 201) throw new Error(`webhook: ${res.status} ${res.text}`);
  return { id: res.json.id as number, url, secret: res.json.secret as string };
}

export async function deliveries(creds: Credentials, webhookId: number, query = "") {
  const res = await call("GET", `/api/v1/webhooks/${webhookId}/deliveries${query}`, { creds });
  if (res.status !== 200) throw new Error(`deliveries: ${res.status} ${res.text}`);
  return res.json;
}

/** Waits until the subscription has `count` deliveries, all settled (delivered or failed). */
export async function settledDeliveries(creds: Credentials, webhookId: number, count: number, timeoutMs = 10_000) {
  return waitFor(async () => {
    const page = await deliveries(creds, webhookId);
    const settled = page.data.filter((d: { status: string }) => d.status === "delivered" || d.status === "failed");
    return page.meta.total === count && settled.length === count ? page.data : null;
  }, timeoutMs);
}

/** Waits until every event of the account has been published (so no delivery is still to come). */
export async function allPublished(accountId: number, atLeast: number) {
  await waitFor(async () => {
    const row = await env.DB.prepare(
      "SELECT count(*) AS total, count(published_at) AS published FROM events WHERE account_id = ?",
    )
      .bind(accountId)
      .first<{ total: number; published: number }>();
    return row && row.total >= atLeast && row.total === row.published;
  });
}

const encoder = new TextEncoder();

/** What a shop does: recompute HMAC-SHA256 over "<t>.<raw body>" and compare, and check the age. */
export async function shopVerifies(header: string | undefined, secret: string, body: string): Promise<boolean> {
  if (!header) return false;
  const fields = header.split(",").map((p) => p.split("="));
  const t = fields.find(([k]) => k === "t")?.[1];
  const v1 = fields.filter(([k]) => k === "v1").map(([, v]) => v);
  if (!t || v1.length === 0 || Math.abs(Date.now() / 1000 - Number(t)) > 300) return false;
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(`${t}.${body}`)));
  const hex = Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join("");
  return v1.includes(hex);
}

const iso = (offsetMs = 0) => new Date(Date.now() + offsetMs).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");

/** An event as the outbox writes it, for tests that drive publishing or delivery directly. */
export async function seedEvent(accountId: number, opts: { published: boolean; type?: string }) {
  const id = `evt_${crypto.randomUUID().replace(/-/g, "").slice(0, 24)}`;
  await env.DB.prepare("INSERT INTO events (id, account_id, type, data, created_at, published_at) VALUES (?, ?, ?, ?, ?, ?)")
    .bind(id, accountId, opts.type ?? "order.created", JSON.stringify({ order: { reference: "1000000000000001", external_id: "seeded" } }), iso(), opts.published ? iso() : null)
    .run();
  return id;
}

/** A delivery row in a given state, without any queue message (as if the message was lost). */
export async function seedDelivery(
  accountId: number,
  subscriptionId: number,
  eventId: string,
  opts: { status?: string; attempts?: number; leaseUntil?: string | null; updatedAt?: string } = {},
) {
  const row = await env.DB.prepare(
    `INSERT INTO webhook_deliveries (account_id, subscription_id, event_id, status, attempts, lease_until, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
  )
    .bind(accountId, subscriptionId, eventId, opts.status ?? "pending", opts.attempts ?? 0, opts.leaseUntil ?? null, iso(), opts.updatedAt ?? iso())
    .first<{ id: number }>();
  return row!.id;
}

export const minutesFromNow = (minutes: number) => iso(minutes * 60_000);
