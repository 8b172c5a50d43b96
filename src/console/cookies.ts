// The console's cookies: HttpOnly, SameSite=Lax, Path=/, and Secure with the __Host- prefix
// everywhere except plain-HTTP local development (http://localhost, 127.0.0.1, [::1]), where a
// browser would refuse to store a Secure cookie.
import type { Context } from "hono";
import { deleteCookie, getCookie, setCookie } from "hono/cookie";
import type { AppEnv, Flash } from "../env";
import type { BookmarkCookie } from "../middleware/request-id";
import { areaOfPath } from "./areas";

export function isLocalDevelopment(url: string): boolean {
  const { protocol, hostname } = new URL(url);
  return protocol === "http:" && (hostname === "localhost" || hostname === "127.0.0.1" || hostname === "[::1]");
}

function cookieName(c: Context<AppEnv>, name: string) {
  return isLocalDevelopment(c.req.url) ? name : `__Host-${name}`;
}

function options(c: Context<AppEnv>, maxAgeSeconds?: number) {
  const secure = !isLocalDevelopment(c.req.url);
  return { path: "/", httpOnly: true, sameSite: "Lax" as const, secure, maxAge: maxAgeSeconds };
}

export function readCookie(c: Context<AppEnv>, name: string): string | undefined {
  return getCookie(c, cookieName(c, name));
}

export function writeCookie(c: Context<AppEnv>, name: string, value: string, maxAgeSeconds?: number) {
  setCookie(c, cookieName(c, name), value, options(c, maxAgeSeconds));
}

export function clearCookie(c: Context<AppEnv>, name: string) {
  deleteCookie(c, cookieName(c, name), options(c));
}

/** Where a browser keeps the console's D1 bookmark: its pages read their own writes after a redirect. */
const BOOKMARK_COOKIE = "oi_d1_bookmark";

/** The console's bookmark cookie, which src/app.ts hands to the request context. */
export const consoleBookmarkCookie: BookmarkCookie = {
  applies: (c) => areaOfPath(c.req.path) !== undefined,
  read: (c) => readCookie(c, BOOKMARK_COOKIE),
  write: (c, bookmark) => writeCookie(c, BOOKMARK_COOKIE, bookmark, 60 * 60),
};

// ---- The flash: one message for the next page ------------------------------------

const FLASH = "oi_flash";

export function setFlash(c: Context<AppEnv>, flash: Flash) {
  writeCookie(c, FLASH, btoa(String.fromCharCode(...new TextEncoder().encode(JSON.stringify(flash)))), 60);
}

export function readFlash(c: Context<AppEnv>): Flash | undefined {
  const raw = readCookie(c, FLASH);
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(new TextDecoder().decode(Uint8Array.from(atob(raw), (ch) => ch.charCodeAt(0)))) as Flash;
    return ["success", "error", "info"].includes(parsed.kind) && typeof parsed.text === "string" ? { kind: parsed.kind, text: parsed.text.slice(0, 500) } : undefined;
  } catch {
    return undefined;
  }
}

export const clearFlash = (c: Context<AppEnv>) => clearCookie(c, FLASH);
