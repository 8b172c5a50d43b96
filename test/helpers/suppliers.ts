// Suppliers wired for forwarding tests: a supplier with a channel, and a rule routing lines to it.
import { call, type Credentials } from "./http";
import { unique } from "./factories";
import { waitFor } from "./wait";

export async function supplierWithRule(
  creds: Credentials,
  settings: Record<string, unknown>,
  conditions: { variable: string; operator: string; value?: unknown }[] = [],
) {
  const supplier = await call("POST", "/api/v1/suppliers", { creds, body: { name: unique("Supplier"), ...settings } });
  if (supplier.status !== 201) throw new Error(`supplier: ${supplier.status} ${supplier.text}`);
  const rule = await call("POST", "/api/v1/routing-rules", {
    creds,
    body: { name: `to ${supplier.json.name}`, conditions, action: { type: "assign_supplier", supplier_id: supplier.json.id } },
  });
  if (rule.status !== 201) throw new Error(`rule: ${rule.status} ${rule.text}`);
  return { supplier: supplier.json as { id: number; name: string; webhook_secret: string }, rule: rule.json as { id: number } };
}

/** Waits until every line of the order is in one of the given states, and returns the order. */
export async function orderSettled(creds: Credentials, reference: string, states: string[], timeoutMs = 30_000) {
  return waitFor(async () => {
    const res = await call("GET", `/api/v1/orders/${reference}`, { creds });
    return res.json.order_lines.every((l: { current_status: string }) => states.includes(l.current_status)) ? res.json : null;
  }, timeoutMs);
}

/** An independent HMAC check of `t=<unix>,v1=<hex>` over "<t>.<body>" (not the service's own code). */
export async function signatureValid(header: string, secret: string, body: string): Promise<boolean> {
  const t = /t=(\d+)/.exec(header)?.[1];
  const sigs = [...header.matchAll(/v1=([0-9a-f]{64})/g)].map((m) => m[1]);
  if (!t) return false;
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(`${t}.${body}`)));
  const hex = [...mac].map((b) => b.toString(16).padStart(2, "0")).join("");
  return sigs.includes(hex);
}

/** A signature over "<t>.<body>": a string body as its UTF-8 bytes, or the body's raw bytes as sent. */
export async function signedHeader(secret: string, body: string | Uint8Array, at = Date.now()): Promise<string> {
  const t = Math.floor(at / 1000);
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const bytes = typeof body === "string" ? new TextEncoder().encode(body) : body;
  const signed = new Uint8Array([...new TextEncoder().encode(`${t}.`), ...bytes]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", key, signed));
  return `t=${t},v1=${[...mac].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

export type ChainedSupplier = { supplier: { id: number; name: string; webhook_secret: string }; rule: { id: number; name: string }; key: string | null };

/**
 * Suppliers tried in this order: each gets a catch-all rule after the previous one's (so a line
 * re-routed away from one goes to the next), and a pull supplier a key to answer with.
 */
export async function supplierChain(creds: Credentials, settings: Record<string, unknown>[], rule: Record<string, unknown> = {}): Promise<ChainedSupplier[]> {
  const chain: ChainedSupplier[] = [];
  for (const [i, s] of settings.entries()) {
    const supplier = await call("POST", "/api/v1/suppliers", { creds, body: { name: unique(`S${i + 1}`), ...s } });
    if (supplier.status !== 201) throw new Error(`supplier: ${supplier.status} ${supplier.text}`);
    const created = await call("POST", "/api/v1/routing-rules", {
      creds,
      body: { name: `to ${supplier.json.name}`, conditions: [], action: { type: "assign_supplier", supplier_id: supplier.json.id }, ...rule },
    });
    if (created.status !== 201) throw new Error(`rule: ${created.status} ${created.text}`);
    const key = s.channel === "pull" ? (await call("POST", `/api/v1/suppliers/${supplier.json.id}/keys`, { creds, body: {} })).json.key : null;
    chain.push({ supplier: supplier.json, rule: created.json, key });
  }
  return chain;
}

/** A supplier's answers through the supplier API, with its key. */
export const answer = (key: string, answers: Record<string, unknown>[]) =>
  call("POST", "/api/v1/supplier/answers", { headers: { authorization: `Bearer ${key}` }, body: { answers } });

/** Waits until the supplier's pull list shows the order (its dispatch is awaiting pickup). */
export async function awaitingPickup(key: string, reference: string) {
  return waitFor(async () => {
    const res = await call("GET", "/api/v1/supplier/orders", { headers: { authorization: `Bearer ${key}` } });
    return res.json.data.find((d: { order: { reference: string } }) => d.order.reference === reference) ?? null;
  });
}
