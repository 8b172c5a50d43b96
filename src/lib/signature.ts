// Webhook signatures, both directions: HMAC-SHA256 over "<unix timestamp>.<raw body>", sent as
// `X-Webhook-Signature: t=<unix>,v1=<hex>[,v1=<hex>]` (one v1 per valid secret during a rotation).
import { toHex } from "./crypto";

export const SIGNATURE_HEADER = "X-Webhook-Signature";
export const SIGNATURE_TOLERANCE_SECONDS = 300;

const encoder = new TextEncoder();
const keyCache = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = keyCache.get(secret);
  if (!key) {
    key = crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
    if (keyCache.size > 1000) keyCache.clear();
    keyCache.set(secret, key);
  }
  return key;
}

export async function sign(secret: string, timestamp: number, body: string): Promise<string> {
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), encoder.encode(`${timestamp}.${body}`));
  return toHex(new Uint8Array(mac));
}

export async function signatureHeader(secrets: string[], body: string, now = Date.now()): Promise<string> {
  const t = Math.floor(now / 1000);
  const parts = await Promise.all(secrets.map(async (s) => `v1=${await sign(s, t, body)}`));
  return [`t=${t}`, ...parts].join(",");
}

export const SIGNATURE_MISMATCH = "The signature does not match.";

export type Verification = { ok: true } | { ok: false; reason: string };

/** Accepts when any v1 matches any of the secrets and the timestamp is within the tolerance; `body`: the bytes as sent. */
export async function verifySignature(header: string | undefined, secrets: string[], body: Uint8Array, now = Date.now()): Promise<Verification> {
  if (!header) return { ok: false, reason: `The ${SIGNATURE_HEADER} header is missing.` };
  const parts = header.split(",").map((p) => p.trim().split("="));
  const t = Number(parts.find(([k]) => k === "t")?.[1]);
  const candidates = parts.filter(([k, v]) => k === "v1" && /^[0-9a-f]{64}$/i.test(v ?? "")).map(([, v]) => v.toLowerCase());
  if (!Number.isInteger(t) || candidates.length === 0) return { ok: false, reason: `The ${SIGNATURE_HEADER} header is malformed.` };
  if (Math.abs(now / 1000 - t) > SIGNATURE_TOLERANCE_SECONDS) return { ok: false, reason: "The signature timestamp is too old or in the future." };
  const prefix = encoder.encode(`${t}.`);
  const signed = new Uint8Array(prefix.length + body.length);
  signed.set(prefix);
  signed.set(body, prefix.length);
  for (const secret of secrets) {
    const key = await hmacKey(secret);
    for (const candidate of candidates) {
      const bytes = new Uint8Array(candidate.match(/../g)!.map((h) => parseInt(h, 16)));
      // crypto.subtle.verify compares in constant time.
      if (await crypto.subtle.verify("HMAC", key, bytes, signed)) return { ok: true };
    }
  }
  return { ok: false, reason: SIGNATURE_MISMATCH };
}

/** A new webhook secret: 32 random bytes, hex, with a readable prefix. */
export function newWebhookSecret(): string {
  return `whsec_${toHex(crypto.getRandomValues(new Uint8Array(32)))}`;
}
