// CSRF protection of every state-changing console request, in two layers:
// 1. the browser says where the request came from: Sec-Fetch-Site must be same-origin, or else the
//    Origin header must be this origin (hono's csrf middleware; a request with neither is refused);
// 2. the request carries a token only our own pages know: the session's token (a hidden _csrf field
//    in every form, an X-CSRF-Token header on htmx requests, set once on <body> with hx-headers);
//    before sign-in, a random token in a cookie that the sign-in form repeats (double submit).
import type { Context } from "hono";
import { csrf } from "hono/csrf";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { timingSafeEqual } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { boundaryOf, readMultipart } from "../lib/multipart";
import { readCookie, writeCookie } from "./cookies";

const SAFE = /^(GET|HEAD|OPTIONS)$/;

export const refused = () =>
  new ApiError(403, "Forbidden", {
    error: "This form has expired or was not sent from this site. Reload the page and try again.",
  });

const sameOrigin = csrf();

/** Layer 1 for every unsafe method of the console. */
export const originCheck = createMiddleware<AppEnv>(async (c, next) => {
  if (SAFE.test(c.req.method)) return next();
  // hono's check only looks at form-like bodies; a console POST of any other type is refused outright.
  const type = c.req.header("content-type") ?? "";
  if (!/^(application\/x-www-form-urlencoded|multipart\/form-data)\b/i.test(type)) throw refused();
  try {
    await sameOrigin(c, async () => {});
  } catch {
    throw refused();
  }
  await next();
});

/** The token a request carries: the X-CSRF-Token header (htmx) or the form's _csrf field. */
export async function sentToken(c: Context<AppEnv>): Promise<string> {
  const header = c.req.header("x-csrf-token");
  if (header) return header;
  const body = await c.req.parseBody();
  return typeof body._csrf === "string" ? body._csrf : "";
}

/**
 * Layer 2 for a signed-in area: the session's token. A multipart form (a file upload) is read as it
 * streams: its fields, which come before the file, carry the token, and the handler finds the form,
 * with the file still streaming, in c.get("multipart") (a file is never buffered whole).
 */
export const sessionToken = createMiddleware<AppEnv>(async (c, next) => {
  if (SAFE.test(c.req.method)) return next();
  const boundary = c.req.header("x-csrf-token") ? null : boundaryOf(c.req.header("content-type"));
  if (boundary) {
    const form = await readMultipart(c.req.raw.body, boundary).catch(() => null);
    if (!form) throw refused();
    c.set("multipart", form);
  }
  const sent = boundary ? (c.get("multipart")?.fields._csrf ?? "") : await sentToken(c);
  if (!sent || !timingSafeEqual(sent, c.get("session").csrfToken)) throw refused();
  await next();
});

// ---- Before sign-in: a double-submit token ------------------------------------

const SIGN_IN_COOKIE = "oi_signin_csrf";

/** The sign-in form's token: the cookie's, made when there is none yet. */
export function signInToken(c: Context<AppEnv>): string {
  let token = readCookie(c, SIGN_IN_COOKIE);
  if (!token || !/^[0-9a-f]{32}$/.test(token)) {
    token = [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, "0")).join("");
    writeCookie(c, SIGN_IN_COOKIE, token, 60 * 60 * 24);
  }
  return token;
}

export async function checkSignInToken(c: Context<AppEnv>): Promise<void> {
  const expected = readCookie(c, SIGN_IN_COOKIE);
  const sent = await sentToken(c);
  if (!expected || !sent || !timingSafeEqual(sent, expected)) throw refused();
}
