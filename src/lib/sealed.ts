// Secrets we keep on behalf of others (a shop's API credentials, a supplier's FTP password or SSH
// key): sealed with AES-256-GCM under SECRETS_KEY, a Worker secret, and bound to what they belong
// to (the additional data, e.g. "shop_connection:42"), so a sealed value copied onto another row
// does not open. Rotation (docs/operations.md, "Rotating SECRETS_KEY"): set the new key as
// SECRETS_KEY and the old one as SECRETS_KEY_PREVIOUS; values sealed under either open, new ones are
// sealed under the new key, and `npm run admin -- reseal` re-seals the old ones before the previous
// key is removed.
//
// A sealed value reads "v1.<key id>.<iv>.<ciphertext>", base64url; the key id is the first 8 hex
// digits of the key's SHA-256, so the key that sealed a value is found without trying them all.
import { toHex } from "./crypto";

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export type SealingKeys = { current: string; previous?: string };

export class SealingKeyMissing extends Error {
  constructor() {
    super("SECRETS_KEY is not set: this Worker cannot keep credentials (docs/operations.md, \"Secrets\")");
    this.name = "SealingKeyMissing";
  }
}

/** The keys from the Worker's secrets; throws SealingKeyMissing when SECRETS_KEY is unset. */
export function sealingKeys(env: { SECRETS_KEY?: string; SECRETS_KEY_PREVIOUS?: string }): SealingKeys {
  if (!env.SECRETS_KEY) throw new SealingKeyMissing();
  return { current: env.SECRETS_KEY, previous: env.SECRETS_KEY_PREVIOUS || undefined };
}

const b64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
function fromB64url(text: string): Uint8Array {
  const bin = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

/** The key material: any string (a random 32-byte base64 value in practice), stretched by SHA-256. */
async function keyOf(secret: string): Promise<{ id: string; key: CryptoKey }> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(secret)));
  const id = toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", digest))).slice(0, 8);
  const key = await crypto.subtle.importKey("raw", digest, "AES-GCM", false, ["encrypt", "decrypt"]);
  return { id, key };
}

export async function seal(keys: SealingKeys, plaintext: string, boundTo: string): Promise<string> {
  const { id, key } = await keyOf(keys.current);
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const data = await crypto.subtle.encrypt({ name: "AES-GCM", iv, additionalData: encoder.encode(boundTo) }, key, encoder.encode(plaintext));
  return `v1.${id}.${b64url(iv)}.${b64url(new Uint8Array(data))}`;
}

/** Opens a sealed value; throws when no key we hold sealed it, or it was not sealed for `boundTo`. */
export async function open(keys: SealingKeys, sealed: string, boundTo: string): Promise<string> {
  const [version, id, iv, data] = sealed.split(".");
  if (version !== "v1" || !id || !iv || !data) throw new Error("not a sealed value");
  for (const secret of [keys.current, keys.previous]) {
    if (!secret) continue;
    const k = await keyOf(secret);
    if (k.id !== id) continue;
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: fromB64url(iv), additionalData: encoder.encode(boundTo) }, k.key, fromB64url(data));
    return decoder.decode(plain);
  }
  throw new Error(`sealed under key ${id}, which is neither SECRETS_KEY nor SECRETS_KEY_PREVIOUS`);
}

/** Whether the value was sealed under the current key (re-sealing skips those). */
export async function sealedUnderCurrent(keys: SealingKeys, sealed: string): Promise<boolean> {
  return sealed.split(".")[1] === (await keyOf(keys.current)).id;
}

/** What reads show of a secret: its last 4 characters at most, never more than a quarter of it. */
export function maskedHint(secret: string): string {
  const shown = Math.min(4, Math.floor(secret.length / 4));
  return shown > 0 ? `…${secret.slice(-shown)}` : "…";
}
