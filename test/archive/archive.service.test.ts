// Archiving finished orders to R2 (src/archive, docs/archive.md): an order archived is read back by
// reference exactly as before, creates stay idempotent, a crash or a change between the object's
// write and the rows' delete loses nothing and archives once, a late change is refused.
import { env } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { archiveAccount, archiveDue, deleteAccountArchive, olderThan } from "../../src/archive/archive.service";
import { presentArchived } from "../../src/archive/archive.present";
import { accountPrefix } from "../../src/archive/objects";
import { createDb } from "../../src/db";
import { createAccount, orderPayload, rows } from "../helpers/factories";
import { ADMIN, call, type Credentials } from "../helpers/http";
import { answer, awaitingPickup, orderSettled, supplierChain } from "../helpers/suppliers";
import { waitFor } from "../helpers/wait";
import { move } from "../helpers/moves";
import { countsDiff } from "../helpers/counts";
import { exportArchived } from "../../src/archive/export";
import { ExportOrdersQuery } from "../../src/orders/orders.schemas";

const archive = (accountId: number, body: unknown) => call("POST", `/admin/v1/accounts/${accountId}/archive`, { headers: ADMIN, body });

/** An order created and shipped in full by a pull supplier: finished. */
async function shippedOrder(creds: Credentials, key: string, overrides: Record<string, unknown> = {}) {
  const payload = orderPayload(overrides);
  const created = await call("POST", "/api/v1/orders", { creds, body: payload });
  expect(created.status, created.text).toBe(200);
  const reference = String(created.json.reference);
  await awaitingPickup(key, reference);
  const order = await call("GET", `/api/v1/orders/${reference}`, { creds });
  const shipped = await answer(
    key,
    order.json.order_lines.map((l: { id: number; quantity: number }) => ({ line_id: l.id, action: "ship", quantity: l.quantity, carrier: "PostNL", tracking_number: `3S${l.id}` })),
  );
  expect(shipped.status, shipped.text).toBe(200);
  await orderSettled(creds, reference, ["completed"]);
  return { payload, reference };
}

/** The export's CSV rows (the header first). */
async function exportCsv(creds: Credentials, query: string) {
  const res = await call("GET", `/api/v1/orders/export?${query}`, { creds });
  expect(res.status, res.text).toBe(200);
  return res.text.split("\r\n").filter(Boolean);
}

const objectsOf = async (accountId: number) => (await env.ARCHIVE.list({ prefix: accountPrefix(accountId) })).objects.map((o) => o.key);

describe("archiving finished orders", () => {
  let creds: Credentials;
  let key: string;
  beforeAll(async () => {
    creds = await createAccount();
    [{ key: key! }] = (await supplierChain(creds, [{ channel: "pull" }])) as { key: string }[];
  });

  it("archives a finished order and answers it by reference byte for byte, archived: true added, with x-archived", async () => {
    const { payload, reference } = await shippedOrder(creds, key);
    const before = await call("GET", `/api/v1/orders/${reference}`, { creds });
    expect(before.headers.get("x-archived")).toBeNull();

    const run = await archive(creds.accountId, { older_than_days: 0 });
    expect(run.status, run.text).toBe(200);
    expect(run.json).toEqual({ archived: 1, bytes_freed: expect.any(Number), done: true });
    expect(run.json.bytes_freed).toBeGreaterThan(1000);

    const after = await call("GET", `/api/v1/orders/${reference}`, { creds });
    expect(after.status).toBe(200);
    expect(after.headers.get("x-archived")).toBe("true");
    expect(after.text).toBe(`${before.text.slice(0, -1)},"archived":true}`);
    // It had no returns: its returns are none, from the archive.
    const returns = await call("GET", `/api/v1/orders/${reference}/returns`, { creds });
    expect([returns.status, returns.text, returns.headers.get("x-archived")]).toEqual([200, `{"data":[]}`, "true"]);
    // Its rows left D1; a stub stayed.
    expect(await rows("SELECT id FROM orders WHERE reference = ?", reference)).toEqual([]);
    expect(await rows("SELECT reference, external_id, part IS NOT NULL AS placed FROM archived_orders WHERE reference = ?", reference)).toEqual([
      { reference, external_id: payload.external_id, placed: 1 },
    ]);

    // Nothing of it is left in the list's counters, facets or search keys (their triggers followed the delete).
    const [{ id }] = await rows<{ id: number }>("SELECT id FROM archived_orders WHERE reference = ?", reference);
    expect(await rows("SELECT (SELECT count(*) FROM order_facets WHERE order_id = ?1) + (SELECT count(*) FROM order_search_keys WHERE order_id = ?1) AS n", id)).toEqual([{ n: 0 }]);

    // Create stays idempotent: the same external_id is the archived order, nothing new is stored.
    const again = await call("POST", "/api/v1/orders", { creds, body: payload });
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ message: "Order already exists", reference: Number(reference) });
    expect(await rows("SELECT id FROM orders WHERE account_id = ? AND external_id = ?", creds.accountId, payload.external_id)).toEqual([]);

    // A late change is refused: the order was finished.
    const cancel = await call("POST", `/api/v1/orders/${reference}/cancel`, { creds, body: {} });
    expect(cancel.status, cancel.text).toBe(409);
    expect(cancel.json.error).toContain(`Order ${reference} is archived`);

    // A supplier's late answer names a line the stubs do not keep: the 404 of an unknown line, nothing changes.
    const line = (before.json.order_lines as { id: number }[])[0].id;
    const late = await answer(key, [{ line_id: line, action: "ship", quantity: 1, carrier: "DHL", tracking_number: "LATE1" }]);
    expect(late.status, late.text).toBe(404);
    expect(late.json.error).toBe(`Order line with id '${line}' not found`);
    expect((await call("GET", `/api/v1/orders/${reference}`, { creds })).text).toBe(after.text);

    // Another account's reference stays unknown.
    const other = await createAccount();
    expect((await call("GET", `/api/v1/orders/${reference}`, { creds: other })).status).toBe(404);
  });

  it("leaves unfinished and younger orders live, and archives nothing twice", async () => {
    const open = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
    const shipped = await shippedOrder(creds, key);
    await awaitingPickup(key, String(open.json.reference));
    expect((await archive(creds.accountId, { older_than_days: 1 })).json).toEqual({ archived: 0, bytes_freed: 0, done: true });
    expect((await archive(creds.accountId, { older_than_days: 0 })).json).toMatchObject({ archived: 1, done: true });
    expect((await archive(creds.accountId, { older_than_days: 0 })).json).toEqual({ archived: 0, bytes_freed: 0, done: true });
    const live = await call("GET", `/api/v1/orders/${open.json.reference}`, { creds });
    expect(live.headers.get("x-archived")).toBeNull();
    expect((await call("GET", `/api/v1/orders/${shipped.reference}`, { creds })).headers.get("x-archived")).toBe("true");
  });

  // Orders with returns, open or ended: test/archive/archive.returns.test.ts.

  it("a crash after the object's write leaves the order live; the next run archives it once", async () => {
    const { reference } = await shippedOrder(creds, key);
    const before = await call("GET", `/api/v1/orders/${reference}`, { creds });
    const db = createDb(env.DB);
    const crash = archiveAccount(db, env.ARCHIVE, creds.accountId, olderThan(0), presentArchived, {
      afterWrite: async () => {
        throw new Error("the Worker stopped");
      },
    });
    await expect(crash).rejects.toThrow("the Worker stopped");
    const still = await call("GET", `/api/v1/orders/${reference}`, { creds });
    expect(still.text).toBe(before.text);
    expect(still.headers.get("x-archived")).toBeNull();
    const written = await objectsOf(creds.accountId);

    expect(await archiveAccount(db, env.ARCHIVE, creds.accountId, olderThan(0), presentArchived)).toMatchObject({ archived: 1, done: true });
    // The same object was written again (its name comes from its orders), not a second one.
    expect(await objectsOf(creds.accountId)).toEqual(written);
    expect(await rows("SELECT count(*) AS n FROM archived_orders WHERE reference = ?", reference)).toEqual([{ n: 1 }]);
    expect((await call("GET", `/api/v1/orders/${reference}`, { creds })).text).toBe(`${before.text.slice(0, -1)},"archived":true}`);
  });

  it("an order that changes between its read and the delete stays live", async () => {
    const { reference } = await shippedOrder(creds, key);
    const db = createDb(env.DB);
    const run = await archiveAccount(db, env.ARCHIVE, creds.accountId, olderThan(0), presentArchived, {
      // A change after the read: a block by hand (a real write of the service) in between.
      afterWrite: async () => {
        const res = await call("POST", `/api/v1/orders/${reference}/block`, { creds, body: { reason: "checking" } });
        expect(res.status, res.text).toBe(200);
      },
    });
    expect(run).toEqual({ archived: 0, bytesFreed: 0, done: true });
    const live = await call("GET", `/api/v1/orders/${reference}`, { creds });
    expect(live.status).toBe(200);
    expect(live.json.blocked).toBe(true);
    expect(live.headers.get("x-archived")).toBeNull();
  });

  it("refuses an age below 0 or past a century (422) and an unknown account (404)", async () => {
    expect((await archive(creds.accountId, { older_than_days: -1 })).status).toBe(422);
    expect((await archive(creds.accountId, { older_than_days: 36_501 })).status).toBe(422);
    expect((await archive(999_999_999, { older_than_days: 0 })).status).toBe(404);
  });

  it("deleting an account's archive deletes its objects", async () => {
    const own = await createAccount();
    const [{ key: ownKey }] = (await supplierChain(own, [{ channel: "pull" }])) as { key: string }[];
    await shippedOrder(own, ownKey);
    expect((await archive(own.accountId, { older_than_days: 0 })).json).toMatchObject({ archived: 1 });
    expect(await objectsOf(own.accountId)).toHaveLength(1);
    expect(await deleteAccountArchive(env.ARCHIVE, own.accountId)).toBe(1);
    expect(await objectsOf(own.accountId)).toEqual([]);
    // Other accounts' objects are untouched.
    expect((await objectsOf(creds.accountId)).length).toBeGreaterThan(0);
  });
});

describe("archive_after_days", () => {
  it("is 90 by default, 7 to 3,650; outside is a 422 naming it that changes nothing", async () => {
    const creds = await createAccount();
    const get = async () => (await call("GET", "/api/v1/settings", { creds })).json.archive_after_days;
    expect(await get()).toBe(90);
    for (const days of [7, 3650]) {
      const res = await call("PATCH", "/api/v1/settings", { creds, body: { archive_after_days: days } });
      expect(res.status, res.text).toBe(200);
      expect(res.json.archive_after_days).toBe(days);
    }
    for (const [days, message] of [
      [6, "The archive_after_days field must be at least 7."],
      [3651, "The archive_after_days field must not be greater than 3650."],
    ] as const) {
      const res = await call("PATCH", "/api/v1/settings", { creds, body: { archive_after_days: days } });
      expect(res.status).toBe(422);
      expect(res.json).toEqual({ message: "Errors", errors: { archive_after_days: [message] } });
    }
    expect(await get()).toBe(3650);
  });

  it("the cron archives a finished order once it is older than its account's archive_after_days", async () => {
    const creds = await createAccount();
    const [{ key }] = (await supplierChain(creds, [{ channel: "pull" }])) as { key: string }[];
    const { reference } = await shippedOrder(creds, key);
    expect((await call("PATCH", "/api/v1/settings", { creds, body: { archive_after_days: 7 } })).status).toBe(200);
    const db = createDb(env.DB);
    // Six days on: not yet. Eight days on (the cron's clock, not the order's): archived.
    await archiveDue(db, env.ARCHIVE, new Date(Date.now() + 6 * DAY), presentArchived, 1000);
    expect((await call("GET", `/api/v1/orders/${reference}`, { creds })).headers.get("x-archived")).toBeNull();
    await waitFor(async () => (await archiveDue(db, env.ARCHIVE, new Date(Date.now() + 8 * DAY), presentArchived, 1000)) > 0 || null);
    expect((await call("GET", `/api/v1/orders/${reference}`, { creds })).headers.get("x-archived")).toBe("true");
  });
});

const DAY = 24 * 60 * 60 * 1000;

describe("an account with archived orders moves to another shard", () => {
  it("carries the stubs (the objects stay): read by reference, idempotent create, the reference retired on the old shard", async () => {
    const creds = await createAccount();
    const [{ key }] = (await supplierChain(creds, [{ channel: "pull" }])) as { key: string }[];
    const { payload, reference } = await shippedOrder(creds, key);
    const before = await call("GET", `/api/v1/orders/${reference}`, { creds });
    expect((await archive(creds.accountId, { older_than_days: 0 })).json).toMatchObject({ archived: 1 });
    const objects = await objectsOf(creds.accountId);

    await move(creds.accountId, { shard: 1 });
    const stub = "SELECT reference FROM archived_orders WHERE account_id = ?";
    expect((await env.SHARD_1.prepare(stub).bind(creds.accountId).all()).results).toEqual([{ reference }]);
    expect(await rows(stub, creds.accountId)).toEqual([]);
    expect(await rows("SELECT reference FROM retired_references WHERE reference = ?", reference)).toEqual([{ reference }]);
    expect(await objectsOf(creds.accountId)).toEqual(objects);

    const after = await call("GET", `/api/v1/orders/${reference}`, { creds });
    expect(after.headers.get("x-archived")).toBe("true");
    expect(after.text).toBe(`${before.text.slice(0, -1)},"archived":true}`);
    expect((await call("POST", "/api/v1/orders", { creds, body: payload })).json).toEqual({ message: "Order already exists", reference: Number(reference) });
  });
});

describe("GET /api/v1/orders with archived orders", () => {
  it("lists live orders by default; archived=only lists the archived ones as the list showed them, archived: true added, with q and pages", async () => {
    const creds = await createAccount();
    const [{ key }] = (await supplierChain(creds, [{ channel: "pull" }])) as { key: string }[];
    const a = await shippedOrder(creds, key);
    const b = await shippedOrder(creds, key, { email: "Piet@Voorbeeld.nl" });
    const c = await shippedOrder(creds, key);
    const listed = (await call("GET", "/api/v1/orders", { creds })).json.data as { reference: string }[];
    expect(listed.map((o) => o.reference)).toEqual([c.reference, b.reference, a.reference]);
    expect((await archive(creds.accountId, { older_than_days: 0 })).json).toMatchObject({ archived: 3 });
    const open = String((await call("POST", "/api/v1/orders", { creds, body: orderPayload() })).json.reference);

    const live = await call("GET", "/api/v1/orders", { creds });
    expect(live.json.data.map((o: { reference: string }) => o.reference)).toEqual([open]);
    expect(live.json.meta.total).toBe(1);

    const only = await call("GET", "/api/v1/orders?archived=only", { creds });
    expect(only.status, only.text).toBe(200);
    expect(only.json.meta.total).toBe(3);
    expect(only.json.data).toEqual(listed.map((o) => ({ ...o, archived: true })));

    const refs = async (query: string) => {
      const res = await call("GET", `/api/v1/orders?archived=only&${query}`, { creds });
      expect(res.status, res.text).toBe(200);
      return { total: res.json.meta.total, refs: res.json.data.map((o: { reference: string }) => o.reference) };
    };
    expect(await refs(`q=${a.reference}`)).toEqual({ total: 1, refs: [a.reference] });
    expect(await refs(`q=${encodeURIComponent(b.payload.external_id.toUpperCase())}`)).toEqual({ total: 1, refs: [b.reference] });
    expect(await refs("q=piet%40voorbeeld.nl")).toEqual({ total: 1, refs: [b.reference] });
    expect(await refs("per_page=2&page=2")).toEqual({ total: 3, refs: [a.reference] });
    expect(await refs("sort=created_at&per_page=1")).toEqual({ total: 3, refs: [a.reference] });
    expect(await refs("statuses=completed")).toEqual({ total: 3, refs: [c.reference, b.reference, a.reference] });
    expect(await refs("statuses=declined,pending")).toEqual({ total: 0, refs: [] });
    expect(await refs("blocked=true")).toEqual({ total: 0, refs: [] });

    // What the stubs cannot answer is a 422 naming it, never an answer quietly wider or narrower.
    const refused = await call("GET", "/api/v1/orders?archived=only&supplier_ids=1&shipping=not_shipped", { creds });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.json.errors).sort()).toEqual(["shipping", "supplier_ids"]);
    const unknown = await call("GET", "/api/v1/orders?archived=all", { creds });
    expect(unknown.status).toBe(422);
    expect(Object.keys(unknown.json.errors)).toEqual(["archived"]);
  });

  it("archived=include lists live and archived orders in one list: merged in the sort, counted together, with q, filters and pages", async () => {
    const creds = await createAccount();
    const [{ key }] = (await supplierChain(creds, [{ channel: "pull" }])) as { key: string }[];
    // A live order older than the archived ones (never finished: awaiting pickup), and one newer.
    const x = String((await call("POST", "/api/v1/orders", { creds, body: orderPayload({ total: 30 }) })).json.reference);
    const a = await shippedOrder(creds, key, { total: 50 });
    const b = await shippedOrder(creds, key, { total: 10, email: "Piet.de.Vries-Jansen@Voorbeeld.nl", source: "Shopify" });
    const c = await shippedOrder(creds, key, { total: 40 });
    const csvBefore = await exportCsv(creds, "");
    expect((await archive(creds.accountId, { older_than_days: 0 })).json).toMatchObject({ archived: 3 });
    const d = String((await call("POST", "/api/v1/orders", { creds, body: orderPayload({ total: 20 }) })).json.reference);

    const live = (await call("GET", "/api/v1/orders", { creds })).json.data as { reference: string }[];
    const only = (await call("GET", "/api/v1/orders?archived=only", { creds })).json.data as { reference: string }[];
    const shown = new Map([...live, ...only].map((o) => [o.reference, o]));
    expect(only.every((o) => (o as { archived?: boolean }).archived === true)).toBe(true);

    const list = async (query: string) => {
      const res = await call("GET", `/api/v1/orders?archived=include&${query}`, { creds });
      expect(res.status, res.text).toBe(200);
      return { total: res.json.meta.total, refs: res.json.data.map((o: { reference: string }) => o.reference), data: res.json.data };
    };
    // Each order exactly as its own list shows it (archived ones with archived: true), newest first.
    const all = await list("");
    expect(all.total).toBe(5);
    expect(all.data).toEqual([d, c.reference, b.reference, a.reference, x].map((r) => shown.get(r)));
    expect(await list("per_page=2&page=2")).toMatchObject({ total: 5, refs: [b.reference, a.reference] });
    expect(await list("per_page=2&page=3")).toMatchObject({ total: 5, refs: [x] });
    expect(await list("per_page=2&page=4")).toMatchObject({ total: 5, refs: [] });
    expect(await list("sort=created_at&per_page=3")).toMatchObject({ total: 5, refs: [x, a.reference, b.reference] });
    expect(await list("sort=-total")).toMatchObject({ total: 5, refs: [a.reference, c.reference, x, d, b.reference] });
    expect(await list("sort=total&per_page=2&page=2")).toMatchObject({ total: 5, refs: [x, c.reference] });
    // Filters apply to both sides; the counts of the archived side come from its counters.
    expect(await list("statuses=completed")).toMatchObject({ total: 3, refs: [c.reference, b.reference, a.reference] });
    expect(await list("source=shopify")).toMatchObject({ total: 1, refs: [b.reference] });
    expect(await list("total_min=25&total_max=45")).toMatchObject({ total: 2, refs: [c.reference, x] });
    expect(await list(`q=${encodeURIComponent(c.payload.external_id.toUpperCase())}`)).toMatchObject({ total: 1, refs: [c.reference] });
    expect(await list(`q=${d}`)).toMatchObject({ total: 1, refs: [d] });
    // The start of an archived order's e-mail address (3 to 24 characters), as the live list's prefixes; 2 or 25 characters are not a prefix, the whole address is.
    expect(await list("q=PIET.de")).toMatchObject({ total: 1, refs: [b.reference] });
    expect(await list(`q=${encodeURIComponent("piet.de.vries-jansen@voo")}`)).toMatchObject({ total: 1, refs: [b.reference] });
    expect(await list(`q=${encodeURIComponent("piet.de.vries-jansen@voor")}`)).toMatchObject({ total: 0, refs: [] });
    expect(await list(`q=${encodeURIComponent("Piet.de.Vries-Jansen@Voorbeeld.nl")}`)).toMatchObject({ total: 1, refs: [b.reference] });
    expect((await call("GET", "/api/v1/orders?archived=only&q=pi", { creds })).json.meta.total).toBe(0);
    // The live orders' e-mail prefix finds both sides.
    expect(await list("q=jan%40exa")).toMatchObject({ total: 4, refs: [d, c.reference, a.reference, x] });

    const refused = await call("GET", "/api/v1/orders?archived=include&completed_since=2026-01-01", { creds });
    expect(refused.status).toBe(422);
    expect(Object.keys(refused.json.errors)).toEqual(["completed_since"]);

    // The export: archived orders as their CSV rows were before the archive, merged newest first.
    const rowOf = new Map(csvBefore.slice(1).map((row) => [row.split(",")[0], row]));
    expect((await exportCsv(creds, "")).slice(1)).toEqual([d, x].map((r) => expect.stringMatching(new RegExp(`^${r},`))));
    const included = await exportCsv(creds, "archived=include");
    expect(included[0]).toBe(csvBefore[0]);
    expect(included.slice(1).map((row) => row.split(",")[0])).toEqual([d, c.reference, b.reference, a.reference, x]);
    for (const ref of [a.reference, b.reference, c.reference]) expect(included).toContain(rowOf.get(ref));
    expect((await exportCsv(creds, "archived=only&source=shopify")).slice(1)).toEqual([rowOf.get(b.reference)]);
    // Read in bounded pages: a keyset page of stubs and their objects at a time, none twice.
    const pages: string[][] = [];
    for await (const chunk of exportArchived(createDb(env.DB), env.ARCHIVE, creds.accountId, ExportOrdersQuery.parse({ archived: "only" }), 2)) pages.push(chunk.orders.map((o) => o.reference));
    expect(pages).toEqual([[c.reference, b.reference], [a.reference]]);
    const badExport = await call("GET", "/api/v1/orders/export?archived=only&shipping=not_shipped", { creds });
    expect(badExport.status).toBe(422);
    expect(Object.keys(badExport.json.errors)).toEqual(["shipping"]);

    // The counters of the archived side are exact (drizzle/0047).
    expect(await countsDiff(env.DB, [creds.accountId])).toEqual({ counters: [], facets: [], fts: [] });
  });
});
