// Suppliers of an account. A new or changed supplier can make waiting lines matchable, so creating
// and updating one requests a re-match in the same transaction (src/routing/rematch.ts).
import { and, asc, desc, eq, sql, type SQL } from "drizzle-orm";
import type { Db } from "../db";
import { consoleSessions, supplierKeys, suppliers, type Channel, type Supplier, type SupplierKey } from "../db/schema";
import { newSupplierKeySecret, sha256Hex } from "../lib/crypto";
import { newWebhookSecret } from "../lib/signature";
import { ApiError } from "../lib/errors";
import type { Pipeline } from "../lib/queue";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { isoMicro } from "../lib/time";
import { changeAndRematch } from "../routing/rematch";
import type { SealingKeys } from "../lib/sealed";
import { channelFor, channelSettingsIssues } from "../forwarding/channels";
import { fileTransferColumns, type FileTransferInput } from "./file-transfer.service";

export type SupplierInput = {
  name?: string;
  code?: string | null;
  active?: boolean;
  priority?: number;
  channel?: Channel;
  webhook_url?: string | null;
  email?: string | null;
  acknowledgement_deadline_hours?: number | null;
  acknowledgement_deadline_reroute?: boolean;
  shipping_deadline_days?: number | null;
  /** The file channel's server (null clears it); its secret is sealed with the keys the caller passes. */
  file_transfer?: FileTransferInput | null;
};

/** A channel needs its settings (a webhook URL, an e-mail address, a file server: the channel says which, ./channels/). */
function checkChannel(s: { channel: Channel; webhookUrl: string | null; email: string | null; fileTransfer?: unknown }) {
  const issues = channelSettingsIssues(s.channel, { webhook_url: s.webhookUrl, email: s.email, file_transfer: s.fileTransfer });
  if (issues.length === 0) return;
  const errors: Record<string, string[]> = {};
  for (const { path, message } of issues) (errors[path.join(".")] ??= []).push(message.replace(":attribute", path.join(".")));
  throw ApiError.validation(errors);
}

function columns(input: SupplierInput) {
  return {
    ...(input.name !== undefined && { name: input.name }),
    ...(input.code !== undefined && { code: input.code }),
    ...(input.active !== undefined && { active: input.active }),
    ...(input.priority !== undefined && { priority: input.priority }),
    ...(input.channel !== undefined && { channel: input.channel }),
    ...(input.webhook_url !== undefined && { webhookUrl: input.webhook_url }),
    ...(input.email !== undefined && { email: input.email }),
    ...(input.acknowledgement_deadline_hours !== undefined && { ackDeadlineHours: input.acknowledgement_deadline_hours }),
    ...(input.acknowledgement_deadline_reroute !== undefined && { ackDeadlineReroute: input.acknowledgement_deadline_reroute }),
    ...(input.shipping_deadline_days !== undefined && { shipDeadlineDays: input.shipping_deadline_days }),
  };
}

// Drizzle wraps the driver's error ("Failed query: ..."); the constraint is named in its cause.
const nameTaken = (error: unknown): boolean =>
  error instanceof Error &&
  (/UNIQUE constraint failed: suppliers\.account_id, suppliers\.name/.test(error.message) || nameTaken(error.cause));

/** The id the next supplier gets, as AUTOINCREMENT mints it (the larger of the sequence and the largest id, plus one). */
async function nextSupplierId(db: Db): Promise<number> {
  const [row] = await db.all<{ id: number }>(
    sql`SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'suppliers'), 0), (SELECT coalesce(max(id), 0) FROM suppliers)) + 1 AS id`,
  );
  return row.id;
}

const idTaken = (error: unknown): boolean =>
  error instanceof Error && (/UNIQUE constraint failed: suppliers\.id/.test(error.message) || idTaken(error.cause));

/**
 * A new supplier. A file server's secret is sealed bound to the supplier's id, so that id is taken
 * before the insert (and taken again if a concurrent create got it first): one insert, nothing half-stored.
 */
export async function createSupplier(
  db: Db,
  pipeline: Pipeline,
  accountId: number,
  input: SupplierInput & { name: string },
  keys?: () => SealingKeys,
): Promise<Supplier> {
  for (let tries = 0; ; tries++) {
    try {
      return await insertSupplier(db, pipeline, accountId, input, keys);
    } catch (error) {
      if (tries < 5 && idTaken(error)) continue;
      throw error;
    }
  }
}

async function insertSupplier(db: Db, pipeline: Pipeline, accountId: number, input: SupplierInput & { name: string }, keys?: () => SealingKeys): Promise<Supplier> {
  const now = isoMicro();
  const channel = input.channel ?? "manual";
  checkChannel({ channel, webhookUrl: input.webhook_url ?? null, email: input.email ?? null, fileTransfer: input.file_transfer });
  const id = input.file_transfer ? await nextSupplierId(db) : undefined;
  const file = input.file_transfer && id !== undefined ? await fileTransferColumns(keys!(), accountId, id, input.file_transfer, null) : {};
  try {
    const insert = db
      .insert(suppliers)
      .values({
        ...columns(input),
        ...file,
        ...(id !== undefined && { id }),
        accountId,
        name: input.name,
        channel,
        // A signing secret signs webhooks to the supplier and verifies its callbacks; a file supplier
        // gets orders as files and answers with files, so it is handed none (one is minted if it
        // moves to another channel).
        webhookSecret: channelFor(channel).signs ? newWebhookSecret() : null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    const [row] = await changeAndRematch(db, pipeline, accountId, insert);
    return row;
  } catch (error) {
    if (nameTaken(error)) throw ApiError.validation({ name: ["The name has already been taken."] });
    throw error;
  }
}

export async function getSupplier(db: Db, accountId: number, id: number): Promise<Supplier> {
  const row = await db.query.suppliers.findFirst({ where: and(eq(suppliers.id, id), eq(suppliers.accountId, accountId)) });
  if (!row) throw ApiError.notFound(`Supplier with id '${id}' not found`);
  return row;
}

export async function updateSupplier(
  db: Db,
  pipeline: Pipeline,
  accountId: number,
  id: number,
  input: SupplierInput,
  keys?: () => SealingKeys,
): Promise<Supplier> {
  let file = {};
  let secret = {};
  if (input.channel !== undefined || input.webhook_url !== undefined || input.email !== undefined || input.file_transfer !== undefined) {
    const current = await getSupplier(db, accountId, id);
    // A supplier leaving the file channel needs the signing secret it was never handed.
    if (input.channel !== undefined && channelFor(input.channel).signs && !current.webhookSecret) secret = { webhookSecret: newWebhookSecret() };
    checkChannel({
      channel: input.channel ?? current.channel,
      webhookUrl: input.webhook_url !== undefined ? input.webhook_url : current.webhookUrl,
      email: input.email !== undefined ? input.email : current.email,
      fileTransfer: input.file_transfer !== undefined ? input.file_transfer : current.fileTransfer,
    });
    if (input.file_transfer !== undefined) {
      const stored = current.fileTransfer && current.fileTransferSecret ? { kind: current.fileTransfer.authentication, sealed: current.fileTransferSecret } : null;
      file = await fileTransferColumns(keys!(), accountId, id, input.file_transfer, stored);
    }
  }
  try {
    const update = db
      .update(suppliers)
      .set({ ...columns(input), ...file, ...secret, updatedAt: isoMicro() })
      .where(and(eq(suppliers.id, id), eq(suppliers.accountId, accountId)))
      .returning();
    const [row] = await changeAndRematch(db, pipeline, accountId, update);
    if (!row) throw ApiError.notFound(`Supplier with id '${id}' not found`);
    return row;
  } catch (error) {
    if (nameTaken(error)) throw ApiError.validation({ name: ["The name has already been taken."] });
    throw error;
  }
}

export async function listSuppliers(db: Db, accountId: number, page: PageRequest) {
  const where = eq(suppliers.accountId, accountId);
  const [countRows, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(suppliers).where(where),
    db.select().from(suppliers).where(where).orderBy(asc(suppliers.priority), asc(suppliers.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  return { total: countRows[0]?.total ?? 0, rows };
}

export type SupplierChoice = { id: number; name: string; active: boolean };

/** Every supplier of the account by name, for a choice of suppliers (the rules' and the catalogue's forms). */
export async function supplierChoices(db: Db, accountId: number): Promise<SupplierChoice[]> {
  return db
    .select({ id: suppliers.id, name: suppliers.name, active: suppliers.active })
    .from(suppliers)
    .where(eq(suppliers.accountId, accountId))
    .orderBy(asc(suppliers.name), asc(suppliers.id));
}

/**
 * The same choices as one JSON value (a scalar subquery), for a read that carries them beside its
 * own (the orders page's filter, in the list's count statement); supplierChoicesOf reads it back.
 */
export const supplierChoicesValue = (accountId: number): SQL =>
  sql`(SELECT json_group_array(json_object('id', id, 'name', name, 'active', active))
      FROM (SELECT id, name, active FROM suppliers WHERE account_id = ${accountId} ORDER BY name, id))`;

export function supplierChoicesOf(value: unknown): SupplierChoice[] {
  return (JSON.parse(String(value ?? "[]")) as { id: number; name: string; active: number }[]).map((s) => ({ id: s.id, name: s.name, active: s.active === 1 }));
}

/**
 * A new signing secret; the old one stays valid beside it (both sign outgoing webhooks, either
 * verifies callbacks) until the next rotation, or at once with expirePrevious.
 */
export async function rotateSecret(db: Db, accountId: number, id: number, expirePrevious: boolean): Promise<Supplier> {
  const secret = newWebhookSecret();
  const [row] = await db
    .update(suppliers)
    .set({
      webhookSecretPrevious: expirePrevious ? null : sql`${suppliers.webhookSecret}`,
      webhookSecret: secret,
      updatedAt: isoMicro(),
    })
    .where(and(eq(suppliers.id, id), eq(suppliers.accountId, accountId)))
    .returning();
  if (!row) throw ApiError.notFound(`Supplier with id '${id}' not found`);
  return row;
}

/** A key scoped to one supplier (pull channel, answers). The secret is shown once. */
/** A new supplier key and its secret, which is stored only as a digest: the caller shows it once. */
export async function createSupplierKey(db: Db, accountId: number, supplierId: number, name: string | undefined): Promise<{ key: SupplierKey; secret: string }> {
  await getSupplier(db, accountId, supplierId);
  const secret = newSupplierKeySecret();
  const [row] = await db
    .insert(supplierKeys)
    .values({ accountId, supplierId, name: name ?? null, keyHash: await sha256Hex(secret), prefix: secret.slice(0, 10), createdAt: isoMicro() })
    .returning();
  return { key: row, secret };
}

/** The supplier with its keys (revoked ones too, newest first): one round trip. */
export async function getSupplierWithKeys(db: Db, accountId: number, id: number): Promise<{ supplier: Supplier; keys: SupplierKey[] }> {
  const [rows, keys] = await db.batch([
    db.select().from(suppliers).where(and(eq(suppliers.id, id), eq(suppliers.accountId, accountId))),
    db
      .select()
      .from(supplierKeys)
      .where(and(eq(supplierKeys.supplierId, id), eq(supplierKeys.accountId, accountId)))
      .orderBy(desc(supplierKeys.id)),
  ]);
  if (!rows[0]) throw ApiError.notFound(`Supplier with id '${id}' not found`);
  return { supplier: rows[0], keys };
}

/**
 * Revokes the key and ends the supplier portal sessions opened with it, in one batch. While the
 * account moves only the key is revoked (the one write the freeze lets through, drizzle/0023):
 * its sessions are refused anyway, as they read the key's revoked_at.
 */
export async function revokeSupplierKey(db: Db, accountId: number, supplierId: number, keyId: number, now = isoMicro()) {
  const [rows] = await db.batch([
    db
      .update(supplierKeys)
      .set({ revokedAt: sql`coalesce(${supplierKeys.revokedAt}, ${now})` })
      .where(and(eq(supplierKeys.id, keyId), eq(supplierKeys.supplierId, supplierId), eq(supplierKeys.accountId, accountId)))
      .returning({ id: supplierKeys.id }),
    db
      .delete(consoleSessions)
      .where(
        and(
          eq(consoleSessions.supplierKeyId, keyId),
          sql`EXISTS (SELECT 1 FROM supplier_keys k WHERE k.id = ${keyId} AND k.supplier_id = ${supplierId} AND k.account_id = ${accountId})`,
          sql`NOT EXISTS (SELECT 1 FROM accounts a WHERE a.id = ${accountId} AND a.moving IS NOT NULL)`,
        ),
      ),
  ]);
  if (rows.length === 0) throw ApiError.notFound(`Supplier key with id '${keyId}' not found`);
}
