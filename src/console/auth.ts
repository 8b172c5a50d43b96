// Who is signed in: every page of an area (but its sign-in) needs a live session of that area's
// role. The session puts the same variables in the context as API authentication does (account
// for the shop, supplier for the portal), so a page handler reads them exactly like an API handler.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import type { AppEnv } from "../env";
import { limitCredential } from "../middleware/rate-limit";
import type { Area } from "./areas";
import { clearCookie, readCookie, setFlash, writeCookie } from "./cookies";
import { findSession, openSession, SESSION_LIMITS, type OpenedWith } from "./sessions";
import { useShard } from "../shards/request";
import { shardNumbers } from "../shards/shards";

export const sessionCookie = (area: Area) => `oi_${area.role}_session`;

function afterAnswer(c: Context<AppEnv>, write: Promise<unknown> | null) {
  if (write) c.executionCtx.waitUntil(write.catch((e) => console.error("console session write failed", e)));
}

/** The area's live session, if any (sign-in pages use it to skip the form). */
export async function currentSession(c: Context<AppEnv>, area: Area) {
  const cookie = readCookie(c, sessionCookie(area));
  if (!cookie) return { secret: cookie, session: null };
  // "<shard>.<secret>": the session row lives on its account's shard (shard 0: the secret alone).
  const onShard = /^(\d{1,4})\.(.+)$/.exec(cookie);
  const secret = onShard ? onShard[2] : cookie;
  const shard = onShard ? Number(onShard[1]) : 0;
  if (!shardNumbers(c.env).includes(shard)) return { secret, session: null };
  if (shard !== c.get("shard")) useShard(c, shard);
  const { session, deferred } = await findSession(c.get("primaryDb"), secret, area.role, c.env.ADMIN_TOKEN);
  afterAnswer(c, deferred);
  return { secret, session };
}

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
    c.set("session", { role: session.role, sessionId: session.id, csrfToken: session.csrfToken, label });
    if (session.account) c.set("account", session.account);
    if (session.supplier) c.set("supplier", session.supplier);
    await next();
    // Pages of a signed-in person are nobody else's: never cached.
    c.header("Cache-Control", "no-store");
  });

/** Opens a session and hands the browser its cookie (lasting as long as the session can). */
export async function startSession(c: Context<AppEnv>, area: Area, by: OpenedWith) {
  const { secret } = await openSession(c.get("db"), by);
  const shard = c.get("shard");
  writeCookie(c, sessionCookie(area), shard ? `${shard}.${secret}` : secret, Math.floor(SESSION_LIMITS[area.role].absoluteMs / 1000));
}
