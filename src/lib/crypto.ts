// Secrets, digests and the random identifiers the Worker generates itself.

const encoder = new TextEncoder();

export async function sha256Hex(input: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", encoder.encode(input));
  return toHex(new Uint8Array(digest));
}

export function toHex(bytes: Uint8Array): string {
  let out = "";
  for (const b of bytes) out += b.toString(16).padStart(2, "0");
  return out;
}

/** Constant-time comparison of two strings of equal length (digests, tokens). */
export function timingSafeEqual(a: string, b: string): boolean {
  const left = encoder.encode(a);
  const right = encoder.encode(b);
  if (left.byteLength !== right.byteLength) {
    // Still spend the comparison, then fail.
    crypto.subtle.timingSafeEqual(left, left);
    return false;
  }
  return crypto.subtle.timingSafeEqual(left, right);
}

function randomToken(prefix: string): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const b64 = btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  return `${prefix}_${b64}`;
}

/** An account API key: 32 random bytes, base64url, with a readable prefix. */
export const newApiKeySecret = () => randomToken("oik");

/** A supplier key (scoped to one supplier). */
export const newSupplierKeySecret = () => randomToken("osk");

/**
 * An order reference: 16 digits, first digit 1-8 (so it is always below Number.MAX_SAFE_INTEGER
 * and survives as a JSON number in every client), then the two digits of the shard that mints it,
 * then 13 random digits. Unique across the service by construction: each shard mints only its own
 * tag, its unique index (and the references it retired when an account moved away, drizzle/0016)
 * keeps its own unique, and a moved order keeps its reference. Nothing in it counts anything.
 */
export function newOrderReference(shard: number): string {
  const [a, b, c] = crypto.getRandomValues(new Uint32Array(3));
  const first = (a % 8) + 1; // 1..8
  return `${first}${String(shard).padStart(2, "0")}${String(b % 1e5).padStart(5, "0")}${String(c % 1e8).padStart(8, "0")}`;
}
