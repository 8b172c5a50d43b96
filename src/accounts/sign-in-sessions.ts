// Console sign-in sessions (src/console/auth.ts opens and checks them; the cron cleans them up):
// a random id in a cookie, stored only as its SHA-256 in D1, with an idle and an
// absolute expiry. Every request looks its session up together with the credential it was opened
// with, in one statement (like API authentication), so revoking the API key or the supplier key,
// deactivating the supplier, or changing ADMIN_TOKEN ends the session on the very next request.
import { and, eq, isNull, lte, or, sql } from "drizzle-orm";
import { notMoving } from "../db/moving";
import type { Db } from "../db";
import type { AuthenticatedAccount } from "../env";
import { CONSOLE_ROLES, consoleSessions, type ConsoleRole } from "../db/schema";
import { sha256Hex } from "../lib/crypto";
import { isoMicro } from "../lib/time";

const HOUR = 60 * 60 * 1000;

/** Idle: ends after this long without a request. Absolute: ends this long after sign-in, whatever happens. */
export const SESSION_LIMITS: Record<ConsoleRole, { idleMs: number; absoluteMs: number }> = {
  shop: { idleMs: 12 * HOUR, absoluteMs: 7 * 24 * HOUR },
  supplier: { idleMs: 12 * HOUR, absoluteMs: 7 * 24 * HOUR },
  // The operator sees every account: shorter.
  operator: { idleMs: 1 * HOUR, absoluteMs: 12 * HOUR },
};

/** last_seen_at is written at most this often, so reading a page does not write on every request. */
const TOUCH_AFTER_MS = 5 * 60 * 1000;

export type OpenedWith =
  | { role: "shop"; accountId: number; apiKeyId: number }
  | { role: "supplier"; accountId: number; supplierKeyId: number }
  | { role: "operator"; adminToken: string };

/** 32 random bytes, base64url: the cookie's value. */
function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The session's CSRF token: derived from the secret, so nothing more is stored and no other session can know it. */
export const csrfTokenOf = (secret: string) => sha256Hex(`csrf:${secret}`);

const operatorTokenHash = (token: string) => sha256Hex(`operator-session:${token}`);

export async function openSession(db: Db, by: OpenedWith, now = new Date()) {
  const secret = newSecret();
  const expiresAt = new Date(now.getTime() + SESSION_LIMITS[by.role].absoluteMs);
  const [row] = await db
    .insert(consoleSessions)
    .values({
      tokenHash: await sha256Hex(secret),
      role: by.role,
      accountId: by.role === "operator" ? null : by.accountId,
      apiKeyId: by.role === "shop" ? by.apiKeyId : null,
      supplierKeyId: by.role === "supplier" ? by.supplierKeyId : null,
      operatorTokenHash: by.role === "operator" ? await operatorTokenHash(by.adminToken) : null,
      createdAt: isoMicro(now),
      lastSeenAt: isoMicro(now),
      expiresAt: isoMicro(expiresAt),
    })
    .returning({ id: consoleSessions.id });
  return { id: row.id, secret, expiresAt };
}

// Runs on every console request: plain SQL, one statement, each request binds the digest.
const LOOKUP_SQL = `SELECT s.id, s.role, s.account_id, s.api_key_id, s.operator_token_hash, s.last_seen_at, s.expires_at,
    a.name AS account_name, a.currency AS account_currency, a.moving AS account_moving, k.revoked_at AS api_key_revoked_at, k.expires_at AS api_key_expires_at,
    sk.revoked_at AS supplier_key_revoked_at, sp.id AS supplier_id, sp.name AS supplier_name, sp.active AS supplier_active
  FROM console_sessions s
  LEFT JOIN accounts a ON a.id = s.account_id
  LEFT JOIN api_keys k ON k.id = s.api_key_id
  LEFT JOIN supplier_keys sk ON sk.id = s.supplier_key_id
  LEFT JOIN suppliers sp ON sp.id = sk.supplier_id
  WHERE s.token_hash = ?1`;

/** A session's row as the lookup finds it, before it is judged live or ended. */
export type SessionRow = {
  id: number;
  role: ConsoleRole;
  account_id: number | null;
  api_key_id: number | null;
  operator_token_hash: string | null;
  last_seen_at: string;
  expires_at: string;
  account_name: string | null;
  account_currency: string | null;
  account_moving: AccountMoving | null;
  api_key_revoked_at: string | null;
  api_key_expires_at: string | null;
  supplier_key_revoked_at: string | null;
  supplier_id: number | null;
  supplier_name: string | null;
  supplier_active: number | null;
};

export type LiveSession = {
  id: number;
  role: ConsoleRole;
  csrfToken: string;
  account: AuthenticatedAccount | null;
  supplier: { id: number; accountId: number; name: string; currency: string } | null;
  /** The account's move (src/shards/move.ts): 'frozen' takes no writes. */
  moving: AccountMoving | null;
  expiresAt: string;
};

type AccountMoving = "frozen" | "leaving" | "arriving";

async function stillValid(row: SessionRow, adminToken: string | undefined, now: number): Promise<boolean> {
  const limits = SESSION_LIMITS[row.role];
  if (Date.parse(row.expires_at) <= now || Date.parse(row.last_seen_at) + limits.idleMs <= now) return false;
  switch (row.role) {
    case "shop":
      return row.account_name !== null && row.api_key_revoked_at === null && !(row.api_key_expires_at && Date.parse(row.api_key_expires_at) <= now);
    case "supplier":
      return row.supplier_id !== null && row.supplier_key_revoked_at === null && row.supplier_active === 1;
    case "operator":
      return !!adminToken && row.operator_token_hash === (await operatorTokenHash(adminToken));
  }
}

/** The session row of the cookie's secret, looked up by its SHA-256 only; null when this database has none. */
export async function sessionRow(db: Db, secret: string): Promise<SessionRow | null> {
  const { results } = await db.$client.prepare(LOOKUP_SQL).bind(await sha256Hex(secret)).all<SessionRow>();
  return results[0] ?? null;
}

/**
 * The live session of this role from its row, or null. `deferred` is a write to run after the
 * answer: refreshing last_seen_at (at most every five minutes), or deleting a session that has
 * ended; none while the account moves (its rows take no writes; the cron deletes ended ones later).
 */
export async function liveSession(db: Db, row: SessionRow, secret: string, role: ConsoleRole, adminToken: string | undefined, now = new Date()) {
  if (row.role !== role) return { session: null, deferred: null };
  const writable = row.account_moving === null;
  if (!(await stillValid(row, adminToken, now.getTime()))) {
    return { session: null, deferred: writable ? db.delete(consoleSessions).where(eq(consoleSessions.id, row.id)).run() : null };
  }
  const stale = now.getTime() - Date.parse(row.last_seen_at) > TOUCH_AFTER_MS;
  const session: LiveSession = {
    id: row.id,
    role: row.role,
    csrfToken: await csrfTokenOf(secret),
    account: row.role === "shop" ? { id: row.account_id!, name: row.account_name!, apiKeyId: row.api_key_id!, currency: row.account_currency! } : null,
    supplier: row.role === "supplier" ? { id: row.supplier_id!, accountId: row.account_id!, name: row.supplier_name!, currency: row.account_currency! } : null,
    moving: row.account_moving,
    expiresAt: row.expires_at,
  };
  const deferred = stale && writable ? db.update(consoleSessions).set({ lastSeenAt: isoMicro(now) }).where(eq(consoleSessions.id, row.id)).run() : null;
  return { session, deferred };
}

/** Signing out: the session is gone at once. */
export async function endSession(db: Db, secret: string) {
  await db.delete(consoleSessions).where(eq(consoleSessions.tokenHash, await sha256Hex(secret)));
}

/** The cron's cleanup of sessions past their absolute or idle end (ended ones are refused anyway); returns how many. */
export async function deleteEndedSessions(db: Db, now = new Date()): Promise<number> {
  const idleBefore = (role: ConsoleRole) => isoMicro(new Date(now.getTime() - SESSION_LIMITS[role].idleMs));
  const result = await db
    .delete(consoleSessions)
    .where(
      and(
        or(
          lte(consoleSessions.expiresAt, isoMicro(now)),
          ...CONSOLE_ROLES.map((role) => and(eq(consoleSessions.role, role), lte(consoleSessions.lastSeenAt, idleBefore(role)))),
        ),
        // A moving account's sessions refuse deletes (src/db/moving.ts); an operator's has no account.
        or(isNull(consoleSessions.accountId), notMoving(sql`${consoleSessions.accountId}`)),
      ),
    )
    .run();
  return result.meta.changes ?? 0;
}
