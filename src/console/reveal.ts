// Secrets shown once (a new API key, a supplier key, a signing secret), as the API shows them once,
// across the redirect that follows the form (POST/redirect/GET): the page that created it hands the
// secret to the next page in a short-lived cookie, encrypted (AES-GCM) with a key derived from the
// session's own secret, and that page shows it and clears the cookie. Nothing is stored in D1.
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { areaOfPath } from "./areas";
import { sessionSecret } from "./auth";
import type { Revealed } from "../ui/secret";
import { clearCookie, readCookie, writeCookie } from "./cookies";

const COOKIE = "oi_reveal";
const LIFETIME_SECONDS = 120;

/** What a page reveals: the UI kit's SecretOnce shows it. */
export type { Revealed };

async function keyOf(c: Context<AppEnv>): Promise<CryptoKey | null> {
  const area = areaOfPath(c.req.path);
  const secret = area ? sessionSecret(c, area) : undefined;
  if (!secret) return null;
  const material = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`reveal:${secret}`));
  return crypto.subtle.importKey("raw", material, "AES-GCM", false, ["encrypt", "decrypt"]);
}

const b64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const unb64 = (s: string) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (ch) => ch.charCodeAt(0));

export async function revealOnce(c: Context<AppEnv>, revealed: Revealed) {
  const key = await keyOf(c);
  if (!key) return;
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: "AES-GCM", iv }, key, new TextEncoder().encode(JSON.stringify(revealed))));
  writeCookie(c, COOKIE, `${b64(iv)}.${b64(sealed)}`, LIFETIME_SECONDS);
}

/** The secret handed over by the previous page, if any; it is gone after this. */
export async function takeRevealed(c: Context<AppEnv>): Promise<Revealed | undefined> {
  const raw = readCookie(c, COOKIE);
  if (!raw) return undefined;
  clearCookie(c, COOKIE);
  const key = await keyOf(c);
  const [iv, sealed] = raw.split(".");
  if (!key || !iv || !sealed) return undefined;
  try {
    const plain = await crypto.subtle.decrypt({ name: "AES-GCM", iv: unb64(iv) }, key, unb64(sealed));
    const parsed = JSON.parse(new TextDecoder().decode(plain)) as Revealed;
    return typeof parsed.label === "string" && typeof parsed.value === "string" ? parsed : undefined;
  } catch {
    return undefined;
  }
}
