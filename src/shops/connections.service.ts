// The shop's connections to its own shop (src/shops/platforms): created with the platform's
// credentials, sealed at once (src/lib/sealed.ts) and never shown again; listed, read, changed,
// paused, soft-deleted (write-backs' history still names a deleted connection, which writes nothing);
// and tested against the shop: reachability first, then the platform adapter's own checks.
import { and, asc, eq, isNull, sql } from "drizzle-orm";
import type { Db } from "../db";
import { shopConnections, type ShopConnectionRow, type ShopPlatformName } from "../db/schema";
import type { Bindings } from "../env";
import { ApiError, type ValidationErrors } from "../lib/errors";
import { sendSettings } from "../lib/outbound";
import { offsetOf, type PageRequest } from "../lib/pagination";
import type { Pipeline } from "../lib/queue";
import { maskedHint, open, seal, SealingKeyMissing, sealedUnderCurrent, sealingKeys, type SealingKeys } from "../lib/sealed";
import { isoMicro } from "../lib/time";
import { checkPlatformFields, issuesToErrors } from "./connection-fields";
import { ShopError, ShopHttp } from "./platforms/http";
import { platformFor, type AnyShopPlatform } from "./platforms/index";
import type { Check, ShopConnection } from "./platforms/platform";
import { fullSyncAfterSettingsChange } from "./stock/queue";
import { affectsEveryProduct, syncSettingsOf } from "./stock/sync-settings";
import { kickWriteBacks } from "./write-back.service";

export type ConnectionCreate = {
  platform: ShopPlatformName;
  name: string;
  base_url: string;
  credentials: Record<string, unknown>;
  sources?: string[] | null;
  settings?: Record<string, unknown>;
  active?: boolean;
};
export type ConnectionUpdate = Partial<Omit<ConnectionCreate, "platform">> & { platform?: string };

export type TestResult = { ok: boolean; checks: Check[] };

const notFound = (id: number | string) => ApiError.notFound(`Shop connection with id '${id}' not found`);

/** What a connection's sealed credentials are bound to: its account and platform (both kept by a move between shards). */
export const sealedFor = (accountId: number, platform: ShopPlatformName) => `shop_connection:${accountId}:${platform}`;

/** The Worker's sealing keys; without SECRETS_KEY no credential can be kept or used: a 503 that says so. */
export function connectionKeys(env: Pick<Bindings, "SECRETS_KEY" | "SECRETS_KEY_PREVIOUS">): SealingKeys {
  try {
    return sealingKeys(env);
  } catch (error) {
    if (error instanceof SealingKeyMissing) throw new ApiError(503, "Service Unavailable", { error: error.message });
    throw error;
  }
}

async function sealCredentials(keys: SealingKeys, accountId: number, platform: ShopPlatformName, credentials: Record<string, string>) {
  const hint = Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k, maskedHint(v)]));
  return { credentialsSealed: await seal(keys, JSON.stringify(credentials), sealedFor(accountId, platform)), credentialsHint: hint };
}

/**
 * The platform's own set-up in the shop (Shopify's webhook subscriptions), with live calls. Its
 * failure never undoes the connection: /test says what is missing and makes it again.
 */
async function setUp(env: Bindings, row: ShopConnectionRow, credentials: Record<string, string>, origin: string | undefined): Promise<Check | null> {
  const adapter = adapterOf(row.platform);
  if (!adapter?.connected || !origin) return null;
  const conn: ShopConnection = { id: row.id, platform: row.platform, baseUrl: row.baseUrl, credentials, settings: row.settings };
  const http = new ShopHttp({ baseUrl: row.baseUrl, timeoutMs: sendSettings(env).timeoutMs, dryRun: false, secrets: Object.values(credentials) });
  try {
    return await adapter.connected(conn, http, { origin, accountId: row.accountId });
  } catch (error) {
    if (!(error instanceof ShopError)) throw error;
    return { name: "Webhooks", ok: false, message: `Could not set up the shop's webhooks: ${error.message}.` };
  }
}

/** `origin`: this service's public address, for what the shop calls back (Shopify's webhooks). */
export async function createConnection(db: Db, env: Bindings, accountId: number, input: ConnectionCreate, origin?: string): Promise<ShopConnectionRow> {
  const checked = checkPlatformFields(input.platform, { credentials: input.credentials, settings: input.settings ?? {} });
  if (checked.issues.length > 0) throw ApiError.validation(issuesToErrors(checked.issues));
  const sealed = await sealCredentials(connectionKeys(env), accountId, input.platform, checked.credentials!);
  const now = isoMicro();
  const [row] = await db
    .insert(shopConnections)
    .values({
      accountId,
      platform: input.platform,
      name: input.name,
      baseUrl: input.base_url,
      ...sealed,
      sources: input.sources ?? null,
      settings: checked.settings!,
      active: input.active ?? true,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (row.active) await setUp(env, row, checked.credentials!, origin);
  return row;
}

const live = (accountId: number, id: number) => and(eq(shopConnections.id, id), eq(shopConnections.accountId, accountId), isNull(shopConnections.deletedAt));

/** A connection of the account; a deleted one, or another account's, is not found. */
export async function getConnection(db: Db, accountId: number, id: number): Promise<ShopConnectionRow> {
  const row = await db.select().from(shopConnections).where(live(accountId, id)).get();
  if (!row) throw notFound(id);
  return row;
}

/** The account's connections, oldest first, without the deleted ones: one count, one page. */
export async function listConnections(db: Db, accountId: number, page: PageRequest) {
  const where = and(eq(shopConnections.accountId, accountId), isNull(shopConnections.deletedAt));
  const [countRows, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(shopConnections).where(where),
    db.select().from(shopConnections).where(where).orderBy(asc(shopConnections.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  return { total: countRows[0]?.total ?? 0, rows };
}

/**
 * Only the fields sent. The platform stays (a PATCH naming another is refused); new credentials are
 * every field of it; settings sent are laid over the stored ones and checked whole. A change of
 * stock or price settings that reaches every product queues a full stock sync.
 */
export async function updateConnection(db: Db, env: Bindings, pipeline: Pipeline, accountId: number, id: number, input: ConnectionUpdate): Promise<ShopConnectionRow> {
  const row = await getConnection(db, accountId, id);
  const errors: ValidationErrors =
    input.platform !== undefined && input.platform !== row.platform
      ? { platform: [`The platform field cannot be changed (the connection is ${row.platform}); delete the connection and create another.`] }
      : {};
  const settings = input.settings === undefined ? undefined : { ...row.settings, ...input.settings };
  const checked = checkPlatformFields(row.platform, { credentials: input.credentials, settings });
  Object.assign(errors, issuesToErrors(checked.issues));
  const address = typeof input.base_url === "string" ? (platformFor(row.platform).baseUrlProblem?.(input.base_url) ?? null) : null;
  if (address) errors.base_url = [address.replace(":attribute", "base_url")];
  if (Object.keys(errors).length > 0) throw ApiError.validation(errors);
  const sealed = checked.credentials ? await sealCredentials(connectionKeys(env), accountId, row.platform, checked.credentials) : undefined;
  const [updated] = await db
    .update(shopConnections)
    .set({
      ...(input.name !== undefined && { name: input.name }),
      ...(input.base_url !== undefined && { baseUrl: input.base_url }),
      ...(input.sources !== undefined && { sources: input.sources }),
      ...(checked.settings !== undefined && { settings: checked.settings }),
      ...(input.active !== undefined && { active: input.active }),
      ...sealed,
      updatedAt: isoMicro(),
    })
    .where(live(accountId, id))
    .returning();
  if (!updated) throw notFound(id);
  // Resumed: what waited while it was paused goes now (the cron's safety net would within minutes).
  if (!row.active && updated.active) await kickWriteBacks(db, pipeline, id);
  // Settings that change every product's value (price sync turned on, markup, buffer…): only a full sync brings the shop in line.
  if (updated.active && affectsEveryProduct(syncSettingsOf(row), syncSettingsOf(updated))) await fullSyncAfterSettingsChange(db, pipeline, accountId, id);
  return updated;
}

/** Soft delete: the row stays for the write-backs' history that names it; it is gone from reads and writes nothing. */
export async function deleteConnection(db: Db, accountId: number, id: number, env?: Bindings): Promise<void> {
  const row = await getConnection(db, accountId, id);
  const adapter = adapterOf(row.platform);
  // What the connection set up in the shop goes with it (Shopify's webhooks); a shop that cannot be
  // reached does not keep the connection alive: its deliveries meet a deleted connection (404).
  if (env && adapter?.disconnected) {
    try {
      const conn = await openConnection(connectionKeys(env), row);
      await adapter.disconnected(conn, new ShopHttp({ baseUrl: row.baseUrl, timeoutMs: sendSettings(env).timeoutMs, dryRun: false, secrets: Object.values(conn.credentials) }));
    } catch (error) {
      console.warn(JSON.stringify({ level: "warn", message: "shop connection's set-up not removed", connection: id, error: String(error) }));
    }
  }
  const now = isoMicro();
  const [deleted] = await db.update(shopConnections).set({ deletedAt: now, updatedAt: now }).where(live(accountId, id)).returning({ id: shopConnections.id });
  if (!deleted) throw notFound(id);
}

/** The connection as an adapter takes it, its credentials opened. Throws when no key we hold sealed them. */
export async function openConnection(keys: SealingKeys, row: ShopConnectionRow): Promise<ShopConnection> {
  const credentials = JSON.parse(await open(keys, row.credentialsSealed, sealedFor(row.accountId, row.platform))) as Record<string, string>;
  return { id: row.id, platform: row.platform, baseUrl: row.baseUrl, credentials, settings: row.settings };
}

/** Every status: any HTTP answer means the shop was reached. */
const ANY_STATUS = Array.from({ length: 500 }, (_, i) => i + 100);

function adapterOf(platform: ShopPlatformName): AnyShopPlatform | null {
  try {
    return platformFor(platform);
  } catch {
    return null;
  }
}

/**
 * A pass that reads as one: any answer means the shop was reached, and a shop's home page often
 * answers 404 or 401 to a client without cookies, so that status is said to be fine, not shown bare.
 */
export function reachedMessage(baseUrl: string, status: number): string {
  if (status < 400) return `Reached ${baseUrl}: the shop's server answered.`;
  return `Reached ${baseUrl}: the shop's server answered (${status} on its home page is expected here; its API is checked next).`;
}

/**
 * Checks the connection against its shop and says in words what is wrong: first whether the shop
 * answers at all (DNS, refused, TLS, timeout), then the platform adapter's checks (credentials,
 * permissions, extensions). Writes nothing: every call goes through a dry-run ShopHttp.
 */
export async function testConnection(db: Db, env: Bindings, accountId: number, id: number, origin?: string): Promise<TestResult> {
  const row = await getConnection(db, accountId, id);
  const keys = connectionKeys(env);
  let conn: ShopConnection;
  try {
    conn = await openConnection(keys, row);
  } catch {
    const why = (await sealedUnderCurrent(keys, row.credentialsSealed)) ? "they do not open" : "they were sealed under a key this service no longer holds";
    return { ok: false, checks: [{ name: "credentials", ok: false, message: `The stored credentials cannot be used: ${why}. Enter them again (edit the connection).` }] };
  }
  const http = new ShopHttp({ baseUrl: row.baseUrl, timeoutMs: sendSettings(env).timeoutMs, dryRun: true, secrets: Object.values(conn.credentials) });
  const checks: Check[] = [];
  try {
    const res = await http.request({ path: "/", accept: ANY_STATUS });
    checks.push({ name: "connection", ok: true, message: reachedMessage(row.baseUrl, res.status) });
  } catch (error) {
    if (!(error instanceof ShopError)) throw error;
    return { ok: false, checks: [{ name: "connection", ok: false, message: `${error.message}.` }] };
  }
  const adapter = adapterOf(row.platform);
  if (!adapter) {
    checks.push({ name: "credentials", ok: false, message: `Not checked: this service has no ${row.platform} adapter yet.` });
  } else {
    try {
      checks.push(...(await adapter.test(conn, http)));
    } catch (error) {
      if (!(error instanceof ShopError)) throw error;
      checks.push({ name: "platform", ok: false, message: error.message });
    }
    if (checks.every((c) => c.ok)) {
      const setUpCheck = await setUp(env, row, conn.credentials, origin);
      if (setUpCheck) checks.push(setUpCheck);
    }
  }
  return { ok: checks.every((c) => c.ok), checks };
}

export type ResealPage = { resealed: number; alreadyCurrent: number; unopenable: number[]; lastId: number | null };

/**
 * One page of re-sealing (docs/operations.md, "Rotating SECRETS_KEY"): the connections after
 * `afterId` (deleted ones too: their row still holds the secret), each sealed under
 * SECRETS_KEY_PREVIOUS opened and sealed again under SECRETS_KEY, in one batch. Each write is
 * guarded by the value it replaces, so a PATCH of new credentials meanwhile is never overwritten.
 * `lastId`: where the next page starts; null when this was the last. `unopenable`: rows no key we
 * hold opens (their credentials must be entered again).
 */
export async function resealConnections(db: Db, keys: SealingKeys, afterId: number, limit: number): Promise<ResealPage> {
  const rows = await db
    .select({ id: shopConnections.id, accountId: shopConnections.accountId, platform: shopConnections.platform, sealed: shopConnections.credentialsSealed })
    .from(shopConnections)
    .where(sql`${shopConnections.id} > ${afterId}`)
    .orderBy(asc(shopConnections.id))
    .limit(limit);
  const page: ResealPage = { resealed: 0, alreadyCurrent: 0, unopenable: [], lastId: rows.length < limit ? null : rows[rows.length - 1].id };
  const updates = [];
  for (const row of rows) {
    if (await sealedUnderCurrent(keys, row.sealed)) {
      page.alreadyCurrent++;
      continue;
    }
    const boundTo = sealedFor(row.accountId, row.platform);
    let plain: string;
    try {
      plain = await open(keys, row.sealed, boundTo);
    } catch {
      page.unopenable.push(row.id);
      continue;
    }
    const resealed = await seal(keys, plain, boundTo);
    updates.push(db.update(shopConnections).set({ credentialsSealed: resealed }).where(and(eq(shopConnections.id, row.id), eq(shopConnections.credentialsSealed, row.sealed))));
  }
  if (updates.length > 0) {
    const [first, ...rest] = updates;
    const results = await db.batch([first, ...rest]);
    page.resealed = results.reduce((n, r) => n + ((r as { meta?: { changes?: number } }).meta?.changes ?? 0), 0);
  }
  return page;
}
