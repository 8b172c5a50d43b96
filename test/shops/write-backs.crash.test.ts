// A write-back whose Worker stopped mid-attempt (the process killed, the lease running out), on every
// platform and for every kind of write: the stand-in shop applies the write and never answers, and
// the write-back is left as a killed Worker leaves it (delivering under its claim, nothing recorded,
// the lease run out). The cron's safety net finds it, and the attempt that takes over looks in the
// shop first: the shop holds exactly one tracking, note or completion, and shop-sync shows the
// killed attempt as interrupted and the takeover as found.
//
// The order's messages go through the real consumer one by one (benchEnv keeps what is sent), so
// the test decides which write-back is "killed"; the rest runs as in production (local D1, the
// stand-in shop over real HTTP).
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb, toStatement } from "../../src/db";
import type { PipelineMessage } from "../../src/lib/queue";
import { isoMicro } from "../../src/lib/time";
import { carrierPipeline } from "../../src/lib/queue";
import { deliverWriteBack, INTERRUPTED_ERROR, INTERRUPTED_WAITING, writeBackLeaseMs } from "../../src/shops/write-back.service";
import { stuckWriteBacks } from "../../src/shops/write-backs";
import { createAccount, exec, orderPayload, rows } from "../helpers/factories";
import { authHeaders, call } from "../helpers/http";
import { benchEnv, consume, request } from "../helpers/metered-app";
import { shopConnection } from "../helpers/shops";
import { supplierChain } from "../helpers/suppliers";
import { waitFor } from "../helpers/wait";
import { createStandInShop, injectFault, standInShop, type StandInShopHandle } from "./stand-ins/client";
import type { MagentoState } from "./stand-ins/magento";
import type { PrestaShopState } from "./stand-ins/prestashop";
import type { ShopwareState } from "./stand-ins/shopware";
import type { WooState } from "./stand-ins/woocommerce";

type Platform = "woocommerce" | "shopware" | "magento" | "prestashop";
/** A supplier's answer, or (`cancel`) the shop cancelling the line, then the supplier confirming it. */
type Answer = { line: 0 | 1; action: "ship" | "decline" | "cancel"; tracking?: string };
type Case = {
  name: string;
  platform: Platform;
  settings?: Record<string, unknown>;
  /** The supplier's answers, one request each, in order. */
  answers: Answer[][];
  /** The write-back that is killed mid-write. */
  kind: "shipment" | "note" | "complete";
  /** The write the stand-in applies and never answers. */
  fault: { method: string; path: string };
  /** How many of the killed write the shop holds. */
  count: (shop: StandInShopHandle) => Promise<number>;
  /**
   * What the takeover did: found (everything was there), or written when the killed attempt died
   * before a later write of the same write-back (the tracking code there, the delivery not shipped yet).
   */
  takeover?: "found" | "written";
};

const MUG = "0190a7c1d2e34f5a8b9c0d1e2f3a4b5c";
const PLATE = "0190a7c1d2e34f5a8b9c0d1e2f3a4b6d";
/** Each platform's order of two mugs and a plate, as its shop holds it and as its plugin sends it to us. */
const SHOPS: Record<Platform, { seed: unknown; externalId: string; ids: [string, string] }> = {
  woocommerce: {
    seed: { orders: [{ id: 4711, line_items: [{ id: 31, product_id: 501, sku: "MUG-BLUE", name: "Blue mug", quantity: 2 }, { id: 32, product_id: 502, sku: "PLATE-RED-L", name: "Red plate", quantity: 1 }] }] },
    externalId: "4711",
    ids: ["31", "32"],
  },
  shopware: {
    seed: { orders: [{ orderNumber: "10001", lineItems: [{ productId: MUG, productNumber: "MUG-BLUE", quantity: 2, label: "Blue mug" }, { productId: PLATE, productNumber: "PLATE-RED-L", quantity: 1, label: "Red plate" }] }] },
    externalId: "10001",
    ids: [MUG, PLATE],
  },
  magento: {
    seed: {
      orders: [
        {
          entity_id: 42,
          increment_id: "000000123",
          items: [{ item_id: 1, product_id: 501, sku: "MUG-BLUE", name: "Blue mug", qty_ordered: 2 }, { item_id: 2, product_id: 502, sku: "PLATE-RED-L", name: "Red plate", qty_ordered: 1 }],
        },
      ],
    },
    externalId: "000000123",
    ids: ["501", "502"],
  },
  prestashop: {
    seed: {
      orders: [
        {
          id: 7,
          reference: "XKBKNABJK",
          rows: [{ id: 11, product_id: 501, product_reference: "MUG-BLUE", product_name: "Blue mug", product_quantity: 2 }, { id: 12, product_id: 502, product_reference: "PLATE-RED-L", product_name: "Red plate", product_quantity: 1 }],
        },
      ],
    },
    externalId: "XKBKNABJK",
    ids: ["501", "502"],
  },
};

const woo = async (shop: StandInShopHandle) => (await standInShop<WooState>(shop)).state.orders[0];
const wooNotes = async (shop: StandInShopHandle, customer: boolean, like: RegExp) => (await woo(shop)).notes.filter((n) => n.customer_note === customer && like.test(n.note)).length;
const shipBoth: Answer[][] = [[{ line: 0, action: "ship", tracking: "3SABC123" }, { line: 1, action: "ship", tracking: "JJD000123" }]];
const declinePlate: Answer[][] = [[{ line: 1, action: "decline" }]];
const DECLINED = /^Red plate .* was declined, and no other supplier takes it\./;

const CASES: Case[] = [
  {
    name: "WooCommerce, a tracking in the Shipment Tracking extension (tracking: extension)",
    platform: "woocommerce",
    settings: { tracking: "extension" },
    answers: shipBoth,
    kind: "shipment",
    fault: { method: "POST", path: "/shipment-trackings$" },
    count: async (shop) => (await woo(shop)).trackings.filter((t) => t.tracking_number === "3SABC123").length,
  },
  {
    name: "WooCommerce, a tracking in the extension (tracking: auto)",
    platform: "woocommerce",
    answers: shipBoth,
    kind: "shipment",
    fault: { method: "POST", path: "/shipment-trackings$" },
    count: async (shop) => (await woo(shop)).trackings.filter((t) => t.tracking_number === "3SABC123").length,
  },
  {
    name: "WooCommerce, a shipment as a customer note (tracking: note)",
    platform: "woocommerce",
    settings: { tracking: "note" },
    answers: shipBoth,
    kind: "shipment",
    fault: { method: "POST", path: "/notes$" },
    count: (shop) => wooNotes(shop, true, /3SABC123/),
  },
  {
    name: "WooCommerce, a shipment as a customer note (tracking: auto, no extension)",
    platform: "woocommerce",
    answers: shipBoth,
    kind: "shipment",
    fault: { method: "POST", path: "/notes$" },
    count: (shop) => wooNotes(shop, true, /3SABC123/),
  },
  {
    name: "WooCommerce, a private note",
    platform: "woocommerce",
    answers: declinePlate,
    kind: "note",
    fault: { method: "POST", path: "/notes$" },
    count: (shop) => wooNotes(shop, false, DECLINED),
  },
  {
    name: "WooCommerce, the completion",
    platform: "woocommerce",
    answers: shipBoth,
    kind: "complete",
    fault: { method: "PUT", path: "^/wp-json/wc/v3/orders/4711$" },
    count: async (shop) => (await standInShop(shop)).received.filter((r) => r.method === "PUT" && r.path === "/wp-json/wc/v3/orders/4711").length,
  },
  {
    name: "Shopware, a shipment (tracking code and the delivery's transition)",
    platform: "shopware",
    answers: shipBoth,
    kind: "shipment",
    fault: { method: "PATCH", path: "^/api/order-delivery/" },
    takeover: "written",
    count: async (shop) => (await standInShop<ShopwareState>(shop)).state.orders[0].deliveries[0].trackingCodes.filter((c) => c === "3SABC123").length,
  },
  {
    name: "Shopware, a private note (the internal comment)",
    platform: "shopware",
    answers: declinePlate,
    kind: "note",
    fault: { method: "PATCH", path: "^/api/order/" },
    count: async (shop) => ((await standInShop<ShopwareState>(shop)).state.orders[0].internalComment ?? "").split("was declined").length - 1,
  },
  {
    name: "Shopware, the completion",
    platform: "shopware",
    answers: shipBoth,
    kind: "complete",
    fault: { method: "POST", path: "/state/complete$" },
    count: async (shop) => (await standInShop(shop)).received.filter((r) => r.method === "POST" && r.path.endsWith("/state/complete")).length,
  },
  {
    name: "Magento, a shipment",
    platform: "magento",
    answers: shipBoth,
    kind: "shipment",
    fault: { method: "POST", path: "/ship$" },
    count: async (shop) => (await standInShop<MagentoState>(shop)).state.shipments.filter((s) => s.tracks.some((t) => t.track_number === "3SABC123")).length,
  },
  {
    name: "Magento, a private note (an order comment)",
    platform: "magento",
    answers: declinePlate,
    kind: "note",
    fault: { method: "POST", path: "/comments$" },
    count: async (shop) => (await standInShop<MagentoState>(shop)).state.orders[0].status_histories.filter((h) => DECLINED.test(h.comment ?? "")).length,
  },
  {
    name: "PrestaShop, a shipment (the carrier's tracking number)",
    platform: "prestashop",
    answers: shipBoth,
    kind: "shipment",
    fault: { method: "PUT", path: "^/api/order_carriers/" },
    takeover: "written",
    count: async (shop) => String((await standInShop<PrestaShopState>(shop)).state.order_carriers[0].tracking_number).split("3SABC123").length - 1,
  },
  {
    name: "PrestaShop, a private note (a message)",
    platform: "prestashop",
    answers: declinePlate,
    kind: "note",
    fault: { method: "POST", path: "^/api/messages" },
    count: async (shop) => (await standInShop<PrestaShopState>(shop)).state.messages.filter((m) => DECLINED.test(String(m.message))).length,
  },
  {
    // A declined line waits for a person (issue 31): the order is complete once the other line is cancelled.
    name: "PrestaShop, the completion (the shipped state after a line is cancelled)",
    platform: "prestashop",
    answers: [[{ line: 0, action: "ship", tracking: "3SABC123" }], [{ line: 1, action: "cancel" }]],
    kind: "complete",
    fault: { method: "POST", path: "^/api/order_histories" },
    count: async (shop) => (await standInShop<PrestaShopState>(shop)).state.order_histories.length,
  },
];

/** The write-back as a killed Worker leaves it: still delivering under the claim of its attempt (started a minute ago), nothing of that attempt recorded, the lease run out. */
async function killed(writeBackId: number) {
  const started = isoMicro(new Date(Date.now() - 60_000));
  await exec("DELETE FROM shop_write_back_attempts WHERE write_back_id = ?", writeBackId);
  await exec(
    `UPDATE shop_write_backs SET status = 'delivering', unclear = 0, shop_order = NULL, shop_ids = NULL, last_error = NULL, done_at = NULL,
       lease_until = ?, updated_at = ? WHERE id = ?`,
    isoMicro(new Date(Date.now() - 1000)),
    started,
    writeBackId,
  );
}

async function crashCase(c: Case) {
  const creds = await createAccount();
  const { seed, externalId, ids } = SHOPS[c.platform];
  const shop = await createStandInShop(c.platform, c.platform === "woocommerce" && c.name.includes("no extension") ? { ...(seed as object), extension: false } : seed);
  await shopConnection(creds.accountId, c.platform, shop, { settings: c.settings });
  const [{ key }] = await supplierChain(creds, [{ channel: "pull" }]);
  const { env: view, sent } = benchEnv();
  const products = [
    { external_id: ids[0], name: "Blue mug", reference: "MUG-BLUE", quantity: 2, price: 12.5 },
    { external_id: ids[1], name: "Red plate", reference: "PLATE-RED-L", quantity: 1, price: 20 },
  ];
  const created = await request(view, "POST", "/api/v1/orders", authHeaders(creds), orderPayload({ external_id: externalId, source: "Shop", products }));
  expect(created.status).toBe(200);
  const reference = String(created.json.reference);
  const orderId = (await rows<{ id: number }>("SELECT id FROM orders WHERE reference = ?", reference))[0].id;

  let victim: number | null = null;
  /** Every message sent so far through the consumer, one at a time; the first write-back of the kind is killed mid-write. */
  const drain = async () => {
    for (let round = 0; round < 50 && sent.length > 0; round++) {
      const message = sent.shift()!;
      const id = message.type === "write_back" ? message.writeBackId : null;
      const [w] = id === null ? [] : await rows<{ kind: string; order_id: number }>("SELECT kind, order_id FROM shop_write_backs WHERE id = ?", id);
      if (victim === null && w?.order_id === orderId && w.kind === c.kind) {
        victim = id;
        await injectFault(shop, { ...c.fault, hangAfterApplying: true });
        await consume(view, [message]);
        await killed(victim!);
        // What that attempt sent on is gone with its Worker.
        sent.splice(0, sent.length, ...sent.filter((m) => !(m.type === "write_back" && m.writeBackId === victim)));
        continue;
      }
      await consume(view, [message]);
    }
  };
  await drain();
  const lines = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines.map((l: { id: number }) => l.id) as number[];
  const answerOf = (a: Answer) =>
    a.action === "ship"
      ? { line_id: lines[a.line], action: "ship", carrier: "PostNL", tracking_number: a.tracking }
      : a.action === "cancel"
        ? { line_id: lines[a.line], action: "confirm_cancellation" }
        : { line_id: lines[a.line], action: "decline", reason: "discontinued" };
  for (const answers of c.answers) {
    for (const a of answers.filter((a) => a.action === "cancel")) {
      const cancelled = await request(view, "POST", `/api/v1/orders/${reference}/cancel`, authHeaders(creds), { line_ids: [lines[a.line]] });
      expect(cancelled.status, JSON.stringify(cancelled.json)).toBe(200);
      await drain();
    }
    const res = await request(view, "POST", "/api/v1/supplier/answers", { authorization: `Bearer ${key}` }, { answers: answers.map(answerOf) });
    expect(res.status).toBe(200);
    await drain();
  }
  expect(victim).not.toBeNull();
  expect(await c.count(shop)).toBe(1);
  // Before anything takes over, shop-sync already says what happened.
  const before = (await call("GET", `/api/v1/orders/${reference}/shop-sync`, { creds })).json.data.find((s: { id: number }) => s.id === victim);
  expect([before.status, before.attempts.map((a: { outcome: string; error: string; calls: unknown[] }) => [a.outcome, a.error, a.calls])]).toEqual(["delivering", [["interrupted", INTERRUPTED_WAITING, []]]]);

  // The cron's safety net finds it (its lease ran out), and its message takes it over.
  const now = new Date();
  const stuck = await toStatement(createDb(env.DB), stuckWriteBacks(isoMicro(new Date(now.getTime() - 120_000)), isoMicro(now), 10_000)).all<{ id: number }>();
  expect(stuck.results.map((r) => r.id)).toContain(victim);
  sent.push({ type: "write_back", writeBackId: victim! } as PipelineMessage);
  await drain();

  expect(await c.count(shop)).toBe(1);
  const sync = (await call("GET", `/api/v1/orders/${reference}/shop-sync`, { creds })).json.data as { id: number; status: string; attempts: { outcome: string; error: string | null; calls: unknown[] }[] }[];
  const w = sync.find((s) => s.id === victim)!;
  expect([w.status, w.attempts.map((a) => [a.outcome, a.error, a.calls.length > 0])]).toEqual(["done", [["interrupted", INTERRUPTED_ERROR, false], [c.takeover ?? "found", null, true]]]);
  // Every write-back of the order went through, none twice.
  expect(sync.map((s) => s.status).every((s) => s === "done" || s === "skipped")).toBe(true);
}

describe("a write-back whose Worker stopped mid-write: taken over, it looks first and writes nothing twice", () => {
  for (const c of CASES) it(c.name, () => crashCase(c), 60_000);
});

describe("a live attempt renews its lease: the cron hands a write-back on only when its attempt is dead", () => {
  it("an attempt past its first calls renews its lease before the next one, so neither the cron nor a second message takes it over; it writes once", async () => {
    const creds = await createAccount();
    const shop = await createStandInShop("woocommerce", SHOPS.woocommerce.seed);
    await shopConnection(creds.accountId, "woocommerce", shop);
    const [{ key }] = await supplierChain(creds, [{ channel: "pull" }]);
    const { env: view, sent } = benchEnv();
    const products = [
      { external_id: "31", name: "Blue mug", reference: "MUG-BLUE", quantity: 2, price: 12.5 },
      { external_id: "32", name: "Red plate", reference: "PLATE-RED-L", quantity: 1, price: 20 },
    ];
    const created = await request(view, "POST", "/api/v1/orders", authHeaders(creds), orderPayload({ external_id: "4711", source: "Shop", products }));
    expect(created.status).toBe(200);
    const reference = String(created.json.reference);
    // Every message through the consumer, except the shipment's write-back: this test delivers it.
    let shipment: number | null = null;
    const drain = async () => {
      for (let round = 0; round < 50 && sent.length > 0; round++) {
        const message = sent.shift()!;
        if (message.type === "write_back") {
          const [w] = await rows<{ kind: string }>("SELECT kind FROM shop_write_backs WHERE id = ?", message.writeBackId);
          if (w.kind === "shipment") {
            shipment = message.writeBackId;
            continue;
          }
        }
        await consume(view, [message]);
      }
    };
    await drain();
    const lines = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines.map((l: { id: number }) => l.id) as number[];
    const res = await request(view, "POST", "/api/v1/supplier/answers", { authorization: `Bearer ${key}` }, { answers: [{ line_id: lines[0], action: "ship", carrier: "PostNL", tracking_number: "3SLIVE1" }] });
    expect(res.status).toBe(200);
    await drain();
    expect(shipment).not.toBeNull();

    // A slow shop: the order's lookup and the list of its trackings take 0.6 s each (OUTBOUND_TIMEOUT_MS
    // is 1 s here), so the attempt is past the point where its first lease would no longer cover the
    // next call when it writes the tracking (which the shop holds for 0.7 s, within the time box).
    await injectFault(shop, { method: "GET", path: "/orders/4711$", delayMs: 600 });
    await injectFault(shop, { method: "GET", path: "/shipment-trackings$", delayMs: 600 });
    await injectFault(shop, { method: "POST", path: "/shipment-trackings$", delayMs: 700 });
    const db = createDb(env.DB);
    const attempt = deliverWriteBack(db, view, carrierPipeline(view), shipment!);
    await waitFor(async () => ((await standInShop(shop)).received.some((r) => r.method === "POST" && r.path.endsWith("/shipment-trackings")) ? true : null), 10_000);

    // While the write is on its way: the lease reaches one lease past the renewal, not past the claim...
    const [w] = await rows<{ status: string; lease_until: string; attempt_started_at: string }>("SELECT status, lease_until, attempt_started_at FROM shop_write_backs WHERE id = ?", shipment);
    const leaseMs = writeBackLeaseMs(Number(view.OUTBOUND_TIMEOUT_MS));
    expect(w.status).toBe("delivering");
    expect(Date.parse(w.lease_until) - Date.parse(w.attempt_started_at)).toBeGreaterThanOrEqual(leaseMs + 1000);
    // ...so the cron, looking as far as just past the first lease's end, finds nothing to hand on...
    const firstLeaseEnd = new Date(Date.parse(w.attempt_started_at) + leaseMs + 500);
    const stuck = await toStatement(db, stuckWriteBacks(isoMicro(new Date(Date.now() - 120_000)), isoMicro(firstLeaseEnd), 10_000)).all<{ id: number }>();
    expect(stuck.results.map((r) => r.id)).not.toContain(shipment);
    // ...and a second message for it now is not taken: it is looked at again when the lease ends.
    const before = sent.length;
    expect(await deliverWriteBack(db, view, carrierPipeline(view), shipment!)).toBe("skipped");
    expect(sent.slice(before)).toEqual([{ type: "write_back", writeBackId: shipment }]);

    expect(await attempt).toBe("done");
    const held = (await standInShop<WooState>(shop)).state.orders[0].trackings.map((t) => t.tracking_number);
    expect(held).toEqual(["3SLIVE1"]);
    const sync = (await call("GET", `/api/v1/orders/${reference}/shop-sync`, { creds })).json.data as { id: number; status: string; attempts: { outcome: string }[] }[];
    const mine = sync.find((s) => s.id === shipment)!;
    expect([mine.status, mine.attempts.map((a) => a.outcome)]).toEqual(["done", ["written"]]);
  }, 30_000);
});
