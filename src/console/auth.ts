// Who is signed in: every page of an area (but its sign-in) needs a live session of that area's
// role. The session puts the same variables in the context as API authentication does (account
// for the shop, supplier for the portal), so a page handler reads them exactly like an API handler.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { limitCredential } from "../middleware/rate-limit";
import type { Area } from "./areas";
import { clearCookie, readCookie, setFlash, writeCookie } from "./cookies";
import { liveSession, openSession, sessionRow, SESSION_LIMITS, type LiveSession, type OpenedWith } from "../accounts/sign-in-sessions";
import { MovedAway, onAccountShard, useShard } from "../shards/request";
import { shardNumbers } from "../shards/shards";
import { ApiError } from "../lib/errors";

export const sessionCookie = (area: Area) => `oi_${area.role}_session`;

/**
 * The session cookie's value. A shop or supplier session: "a<account id>.<secret>": the account,
 * not its shard, so the session survives a move of the account (its row moves with it): the
 * directory says the shard, cached per isolate, as for the API's account-id header. An operator
 * session has no account: the secret alone, on shard 0.
 * Cookies from before (kept working, so nobody is signed out by the upgrade): "<shard>.<secret>",
 * or the secret alone for shard 0. They are looked up on the shard they name, and rewritten in the
 * account's form on their next page; one not used since its account moved has ended, as before.
 * The prefix only says where to look: a session is found by its secret's SHA-256 alone, and one
 * found for another account than the cookie names is no session.
 */
type CookieValue = { secret: string; accountId: number } | { secret: string; shard: number };

function parseCookie(value: string): CookieValue {
  const ofAccount = /^a(\d{1,15})\.(.+)$/.exec(value);
  if (ofAccount) return { accountId: Number(ofAccount[1]), secret: ofAccount[2] };
  const onShard = /^(\d{1,4})\.(.+)$/.exec(value);
  return onShard ? { shard: Number(onShard[1]), secret: onShard[2] } : { shard: 0, secret: value };
}

const cookieOf = (secret: string, accountId: number | null) => (accountId === null ? secret : `a${accountId}.${secret}`);

/** The secret of the area's session cookie (signing out, the reveal cookie's key). */
export function sessionSecret(c: Context<AppEnv>, area: Area): string | undefined {
  const cookie = readCookie(c, sessionCookie(area));
  return cookie ? parseCookie(cookie).secret : undefined;
}

function afterAnswer(c: Context<AppEnv>, write: Promise<unknown> | null) {
  if (write) c.executionCtx.waitUntil(write.catch((e) => console.error("console session write failed", e)));
}

// Not on this shard: onAccountShard reads the directory once more, as for an unknown API key.
const NOT_HERE = () => ApiError.unauthorized("No console session has this cookie's secret.");

/** The session on the request's current shard, for the account the cookie names (null: any). */
async function lookUp(c: Context<AppEnv>, area: Area, secret: string, accountId: number | null): Promise<LiveSession | null> {
  const row = await sessionRow(c.get("primaryDb"), secret);
  if (!row) throw NOT_HERE();
  if (accountId !== null && row.account_id !== accountId) return null;
  // Switched to another shard already: the rows here are being deleted.
  if (row.account_moving === "leaving" && row.account_id !== null) throw new MovedAway(row.account_id);
  const { session, deferred } = await liveSession(c.get("primaryDb"), row, secret, area.role, c.env.ADMIN_TOKEN);
  afterAnswer(c, deferred);
  return session;
}

const accountOf = (session: LiveSession) => session.account?.id ?? session.supplier?.accountId ?? null;

/** The area's live session, if any (sign-in pages use it to skip the form). */
export async function currentSession(c: Context<AppEnv>, area: Area): Promise<{ secret: string | undefined; session: LiveSession | null }> {
  const cookie = readCookie(c, sessionCookie(area));
  if (!cookie) return { secret: undefined, session: null };
  const parsed = parseCookie(cookie);
  const { secret } = parsed;
  try {
    if ("accountId" in parsed) {
      if (area.role === "operator") return { secret, session: null };
      return { secret, session: await onAccountShard(c, String(parsed.accountId), () => lookUp(c, area, secret, parsed.accountId)) };
    }
    if (!shardNumbers(c.env).includes(parsed.shard)) return { secret, session: null };
    if (parsed.shard !== c.get("shard")) useShard(c, parsed.shard);
    const session = await lookUp(c, area, secret, null).catch((error: unknown) => {
      // An earlier cookie of an account that has just switched shards: follow the account.
      if (!(error instanceof MovedAway) || error.accountId === undefined) throw error;
      const accountId = error.accountId;
      return onAccountShard(c, String(accountId), () => lookUp(c, area, secret, accountId));
    });
    const accountId = session ? accountOf(session) : null;
    if (session && accountId !== null) writeCookie(c, sessionCookie(area), cookieOf(secret, accountId), secondsUntil(session.expiresAt));
    return { secret, session };
  } catch (error) {
    if (error instanceof ApiError && error.status === 401) return { secret, session: null };
    throw error;
  }
}

const secondsUntil = (iso: string) => Math.max(0, Math.floor((Date.parse(iso) - Date.now()) / 1000));

/** Redirects to the sign-in page (htmx: tells htmx to load it as a whole page). */
function toSignIn(c: Context<AppEnv>, area: Area) {
  const next = c.req.method === "GET" ? `?next=${encodeURIComponent(new URL(c.req.url).pathname + new URL(c.req.url).search)}` : "";
  const target = `${area.path}/sign-in${next}`;
  if (c.req.header("hx-request")) return c.body(null, 204, { "HX-Redirect": target });
  return c.redirect(target, 303);
}

export const requireSession = (area: Area) =>
  createMiddleware<AppEnv>(async (c, next) => {
    const { secret, session } = await currentSession(c, area);
    if (!session) {
      if (secret) {
        clearCookie(c, sessionCookie(area));
        setFlash(c, { kind: "info", text: "Your session has ended. Sign in again." });
      }
      return toSignIn(c, area);
    }
    await limitCredential(c, `console-session:${session.id}`);
    const label = session.account?.name ?? (session.supplier ? `${session.supplier.name} (supplier)` : "Operator");
    c.set("session", { role: session.role, sessionId: session.id, csrfToken: session.csrfToken, label, currency: session.account?.currency ?? session.supplier?.currency ?? null });
    if (session.account) c.set("account", session.account);
    if (session.supplier) c.set("supplier", session.supplier);
    // A write of an account in the middle of a move waits (said on the error page, signed in), as in the API (src/middleware/auth.ts).
    if (session.moving === "frozen" && c.req.method !== "GET" && c.req.method !== "HEAD") throw ApiError.accountMoving();
    await next();
    // Pages of a signed-in person are nobody else's: never cached.
    c.header("Cache-Control", "no-store");
  });

/** Opens a session and hands the browser its cookie (lasting as long as the session can). */
export async function startSession(c: Context<AppEnv>, area: Area, by: OpenedWith) {
  const { secret } = await openSession(c.get("db"), by);
  writeCookie(c, sessionCookie(area), cookieOf(secret, by.role === "operator" ? null : by.accountId), Math.floor(SESSION_LIMITS[area.role].absoluteMs / 1000));
}
