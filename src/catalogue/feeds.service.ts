// Product feeds of an account: set-up, listing, changes and removal. Filling them is imports.service.ts.
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Db } from "../db";
import { productFeeds, productImportRows, productImports, products, suppliers, type FeedCredentials, type ProductFeed } from "../db/schema";
import { ApiError } from "../lib/errors";
import { offsetOf, type PageRequest } from "../lib/pagination";
import type { SealingKeys } from "../lib/sealed";
import { isoMicro } from "../lib/time";
import { loginProblems } from "../suppliers/file-transfer.schemas";
import { openLogin, sealedLogin, secretSettings } from "../suppliers/file-transfer.service";
import { fileServerProtocol, isFileServerUrl, type FileServerLogin } from "./feed-servers";
import { httpLoginProblems, type CreateFeedInput, type UpdateFeedInput } from "./feeds.schemas";
import { urlLogin, withoutLogin } from "./feed-urls";

type CredentialsInput = NonNullable<CreateFeedInput["credentials"]>;
type CredentialColumns = { credentials: FeedCredentials | null; credentialsSecret: string | null };

/**
 * What a feed's secret is sealed to: its account and its creation time (fixed, known before the
 * insert that gives the id), so a sealed value copied onto another feed does not open.
 */
const boundTo = (feed: { accountId: number; createdAt: string }) => `product_feed_credentials:${feed.accountId}:${feed.createdAt}`;

const fileServerOf = (url: string | null) => {
  const u = url ? new URL(url) : null;
  return u && isFileServerUrl(u) ? fileServerProtocol(u) : null;
};

const protocolOf = (url: string | null) => (url ? new URL(url).protocol : null);

/** The errors of a login's problems, named under credentials. */
const credentialErrors = (problems: [string, string][]) =>
  ApiError.validation(Object.fromEntries(problems.map(([path, message]) => [`credentials.${path}`, [message.replace(":attribute", `credentials.${path}`)]])));

/**
 * The login columns for a feed's url (undefined: left as they are). A file server url needs
 * credentials, given now or stored for the same protocol; an http(s) url may have them (HTTP Basic
 * auth), given now or stored for the same protocol, or taken from the login a stored url carried
 * (`urlLogin`: a feed from before such urls were refused, saved again). Stored ones for another
 * protocol are cleared. `checked`: the schema has checked the given credentials against the url already.
 */
async function credentialColumns(
  keys: () => SealingKeys,
  feed: { accountId: number; createdAt: string },
  url: string | null,
  input: CredentialsInput | null | undefined,
  stored: Pick<ProductFeed, "url" | "credentials" | "credentialsSecret"> | null,
  checked: boolean,
  carried: { username: string; password: string } | null = null,
): Promise<CredentialColumns | undefined> {
  const protocol = fileServerOf(url);
  // The same kind of server: a stored secret may stay (an ftp password is never sent to a web server).
  const sameServer = url !== null && stored?.credentials && stored.credentialsSecret && protocolOf(stored.url) === protocolOf(url);
  const cleared = stored?.credentials || stored?.credentialsSecret ? { credentials: null, credentialsSecret: null } : undefined;
  if (!protocol) {
    if (url === null) {
      if (input) throw ApiError.validation({ credentials: ["The credentials field is only for a feed with a url."] });
      return cleared;
    }
    if (input === null) return cleared;
    if (input === undefined) {
      if (carried) return sealedColumns(keys(), feed, "https", carried, null);
      return sameServer ? undefined : cleared;
    }
    if (!checked) {
      const problems = httpLoginProblems(input);
      if (problems.length) throw credentialErrors(problems);
    }
    // The user changed, the password left empty: the one the stored url carried stays.
    const given = carried && input.password === undefined ? { ...input, password: carried.password } : input;
    return sealedColumns(keys(), feed, "https", given, sameServer ? stored : null);
  }
  if (!input) {
    if (input === undefined && sameServer) return undefined;
    throw ApiError.validation({ credentials: ["The credentials field is required when url is an ftp, ftps or sftp url."] });
  }
  if (!checked) {
    const problems = loginProblems(input, protocol);
    if (problems.length) throw credentialErrors(problems);
  }
  return sealedColumns(keys(), feed, protocol, input, sameServer ? stored : null);
}

async function sealedColumns(
  keys: SealingKeys,
  feed: { accountId: number; createdAt: string },
  protocol: "ftp" | "ftps" | "sftp" | "https",
  input: { username: string; password?: string; private_key?: string; host_key_fingerprint?: string },
  stored: Pick<ProductFeed, "credentials" | "credentialsSecret"> | null,
): Promise<CredentialColumns> {
  // sealedLogin's protocol only tells sftp (which may take a private key) from the rest.
  const secret = await sealedLogin(
    keys,
    boundTo(feed),
    protocol === "https" ? "ftp" : protocol,
    input,
    stored?.credentials && stored.credentialsSecret ? { kind: stored.credentials.authentication, sealed: stored.credentialsSecret } : null,
    "credentials",
  );
  return {
    credentials: { username: input.username, authentication: secret.kind, host_key_fingerprint: input.host_key_fingerprint ?? null },
    credentialsSecret: secret.sealed,
  };
}

/** How the feed logs in (its file server, or an http(s) server's Basic auth), its secret opened; null when it has no login stored. */
export async function feedLogin(keys: SealingKeys, feed: Pick<ProductFeed, "accountId" | "createdAt" | "credentials" | "credentialsSecret">): Promise<FileServerLogin | null> {
  if (!feed.credentials || !feed.credentialsSecret) return null;
  const secret = await openLogin(keys, feed.credentialsSecret, boundTo(feed));
  return { username: feed.credentials.username, hostKeyFingerprint: feed.credentials.host_key_fingerprint, secret: secretSettings(secret) };
}

function feedId(raw: string | number): number | null {
  const s = String(raw);
  return /^\d{1,15}$/.test(s) ? Number(s) : null;
}

/** The account's feed; another account's id answers exactly like an unknown one. */
export async function getFeed(db: Db, accountId: number, rawId: string | number): Promise<ProductFeed> {
  const id = feedId(rawId);
  const [feed] =
    id === null
      ? []
      : await db
          .select()
          .from(productFeeds)
          .where(and(eq(productFeeds.id, id), eq(productFeeds.accountId, accountId)));
  if (!feed) throw ApiError.notFound(`Product feed with id '${rawId}' not found`);
  return feed;
}

async function assertOwnSupplier(db: Db, accountId: number, supplierId: number) {
  const [row] = await db
    .select({ id: suppliers.id })
    .from(suppliers)
    .where(and(eq(suppliers.id, supplierId), eq(suppliers.accountId, accountId)));
  // Laravel's "exists" wording: a supplier of another account is as unknown as a missing one.
  if (!row) throw ApiError.validation({ supplier_id: ["The selected supplier_id is invalid."] });
}

function assertScheduleHasUrl(url: string | null, schedule: string | null) {
  if (schedule && !url) throw ApiError.validation({ url: ["The url field is required when schedule is present."] });
}

export async function createFeed(db: Db, accountId: number, input: CreateFeedInput, keys: () => SealingKeys): Promise<ProductFeed> {
  const url = input.url ?? null;
  const schedule = input.schedule ?? null;
  assertScheduleHasUrl(url, schedule);
  const now = isoMicro();
  const login = await credentialColumns(keys, { accountId, createdAt: now }, url, input.credentials, null, true);
  await assertOwnSupplier(db, accountId, input.supplier_id);
  const [feed] = await db
    .insert(productFeeds)
    .values({
      accountId,
      supplierId: input.supplier_id,
      name: input.name,
      format: input.format,
      mapping: input.mapping ?? {},
      url,
      schedule,
      encoding: input.encoding ?? null,
      csvDelimiter: input.csv_delimiter ?? null,
      recordPath: input.record_path ?? null,
      active: input.active ?? true,
      credentials: login?.credentials ?? null,
      credentialsSecret: login?.credentialsSecret ?? null,
      // A scheduled feed is first pulled at the next cron tick.
      nextImportAt: schedule ? now : null,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return feed;
}

export async function listFeeds(db: Db, accountId: number, page: PageRequest) {
  const where = eq(productFeeds.accountId, accountId);
  const [countRows, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(productFeeds).where(where),
    db.select().from(productFeeds).where(where).orderBy(asc(productFeeds.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  return { total: countRows[0]?.total ?? 0, rows };
}

/**
 * The page of feeds as listFeeds reads it, with each feed's latest import (one more statement of the
 * same round trip, for the whole page) and the account's suppliers by id.
 */
export async function listFeedsWithLatestImport(db: Db, accountId: number, page: PageRequest) {
  const where = eq(productFeeds.accountId, accountId);
  const pageIds = db.select({ id: productFeeds.id }).from(productFeeds).where(where).orderBy(asc(productFeeds.id)).limit(page.perPage).offset(offsetOf(page));
  const latest = db
    .select({ id: sql<number>`max(${productImports.id})` })
    .from(productImports)
    .where(inArray(productImports.productFeedId, pageIds))
    .groupBy(productImports.productFeedId);
  const [countRows, rows, imports, supplierRows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(productFeeds).where(where),
    db.select().from(productFeeds).where(where).orderBy(asc(productFeeds.id)).limit(page.perPage).offset(offsetOf(page)),
    db.select().from(productImports).where(inArray(productImports.id, latest)),
    db.select({ id: suppliers.id, name: suppliers.name }).from(suppliers).where(eq(suppliers.accountId, accountId)),
  ]);
  return {
    total: countRows[0]?.total ?? 0,
    rows,
    latestImport: new Map(imports.map((i) => [i.productFeedId, i])),
    supplierNames: new Map(supplierRows.map((s) => [s.id, s.name])),
  };
}

export async function updateFeed(db: Db, accountId: number, rawId: string, input: UpdateFeedInput, keys: () => SealingKeys): Promise<ProductFeed> {
  const feed = await getFeed(db, accountId, rawId);
  // A stored url with a login (from before they were refused) is shown without it; sent back as it
  // is shown, it is the same url, and its login moves into sealed credentials.
  const carried = input.url != null && input.url === withoutLogin(feed.url) ? urlLogin(feed.url) : null;
  const url = input.url === undefined ? feed.url : input.url;
  const schedule = input.schedule === undefined ? feed.schedule : input.schedule;
  assertScheduleHasUrl(url, schedule);
  const login = await credentialColumns(keys, feed, url, input.credentials, feed, input.url !== undefined, carried);
  if (input.supplier_id !== undefined && input.supplier_id !== feed.supplierId) await assertOwnSupplier(db, accountId, input.supplier_id);
  const now = isoMicro();
  // A new schedule or url takes effect at the next tick; no schedule, no automatic pulls.
  const rescheduled = schedule !== feed.schedule || (url !== feed.url && !carried);
  const [updated] = await db
    .update(productFeeds)
    .set({
      supplierId: input.supplier_id,
      name: input.name,
      format: input.format,
      mapping: input.mapping === null ? {} : input.mapping,
      url: input.url,
      schedule: input.schedule,
      encoding: input.encoding,
      csvDelimiter: input.csv_delimiter,
      recordPath: input.record_path,
      active: input.active,
      credentials: login?.credentials,
      credentialsSecret: login?.credentialsSecret,
      nextImportAt: !schedule ? null : rescheduled ? now : feed.nextImportAt,
      updatedAt: now,
    })
    .where(and(eq(productFeeds.id, feed.id), eq(productFeeds.accountId, accountId)))
    .returning();
  return updated;
}

/** Removes the feed with its products and import history, in one batch. */
export async function deleteFeed(db: Db, accountId: number, rawId: string) {
  const feed = await getFeed(db, accountId, rawId);
  const importIds = db.select({ id: productImports.id }).from(productImports).where(eq(productImports.productFeedId, feed.id));
  await db.batch([
    db.delete(productImportRows).where(inArray(productImportRows.importId, importIds)),
    db.delete(productImports).where(eq(productImports.productFeedId, feed.id)),
    db.delete(products).where(eq(products.productFeedId, feed.id)),
    db.delete(productFeeds).where(and(eq(productFeeds.id, feed.id), eq(productFeeds.accountId, accountId))),
  ]);
}
