// Issue 31's "Done when" in a real browser: a line declined with no other supplier puts the shop's
// order on hold with a private note (a stand-in WooCommerce shop, test/shops/stand-ins, started
// here on loopback); the order page says so in "In the shop"; the line is sent by hand with the
// console's "Send to a supplier…"; the shop gets a follow-up note and the order off hold; the new
// supplier ships, and only then is the order completed. Every note the shop holds was true when
// written, nothing was written twice, and every page passes axe.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { sealForWorker } from "../../scripts/lib/seal.mjs";
import { api, closeBrowser, createShop, expectAccessible, newPage, onWorkerDb, pullSupplier, signInShop, supplierApi, until, type Shop } from "../browser/console";
import { startStandIns } from "./stand-ins/harness";
import { woocommerceStandIn, type WooState } from "./stand-ins/woocommerce";

let standIns: Awaited<ReturnType<typeof startStandIns>>;
let shop: Shop;
let page: Page;

beforeAll(async () => {
  standIns = await startStandIns([woocommerceStandIn]);
  shop = await createShop();
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(async () => {
  await closeBrowser();
  await standIns.close();
});

type Handle = { id: string; base_url: string; credentials: Record<string, string> };
const admin = async (path: string, body?: unknown) => {
  const res = await fetch(`${standIns.url}${path}`, { method: body === undefined ? "GET" : "POST", body: body === undefined ? undefined : JSON.stringify(body) });
  return res.json();
};
const shopNow = async (wc: Handle) => (await admin(`/__shops/${wc.id}`)) as { state: WooState; received: { method: string; path: string; body: string }[] };
type Sync = { kind: string; status: string };
const shopSync = async (reference: string) => (await api(shop, "GET", `/api/v1/orders/${reference}/shop-sync`)).json.data as Sync[];
/** Waits until the order has `count` write-backs, every one written or skipped. */
const settled = (reference: string, count: number) =>
  until(async () => {
    const list = await shopSync(reference);
    return list.length === count && list.every((w) => w.status === "done" || w.status === "skipped") ? list : null;
  }, `${count} write-backs to be written`);
/** The cells of one column of the In the shop table. */
async function shopColumn(header: string): Promise<string[]> {
  const table = page.locator("#in-the-shop table");
  const index = (await table.locator("thead th").allTextContents()).indexOf(header);
  if (index < 0) throw new Error(`no column ${header}`);
  return table.locator(`tbody tr td:nth-child(${index + 1})`).allTextContents();
}
const card = (lineId: number) => page.locator("article.line", { has: page.locator(`#line-${lineId}`) });

describe("a declined line handled by hand", () => {
  it("ends with the shop's order completed only then, with its notes true", async () => {
    const wc = (await admin("/__shops", {
      platform: "woocommerce",
      seed: {
        orders: [
          {
            id: 5002,
            line_items: [
              { id: 31, product_id: 501, sku: "MUG-BLUE", name: "Blue mug", quantity: 2 },
              { id: 32, product_id: 502, sku: "PLATE-RED-L", name: "Red plate", quantity: 1 },
            ],
          },
        ],
      },
    })) as Handle;
    const sealed = sealForWorker(inject("secretsKey"), JSON.stringify(wc.credentials), `shop_connection:${shop.accountId}:woocommerce`);
    const now = new Date().toISOString();
    onWorkerDb(
      `INSERT INTO shop_connections (account_id, platform, name, base_url, credentials_sealed, credentials_hint, sources, settings, active, created_at, updated_at)
       VALUES (${shop.accountId}, 'woocommerce', 'My WooCommerce', '${wc.base_url}', '${sealed}', '{}', NULL, '{"mode":"live","complete_status":"completed","tracking":"auto"}', 1, '${now}', '${now}')`,
    );
    // Keukenhuis takes kitchen lines; Tuinhout is a supplier of the account no rule sends to.
    const first = await pullSupplier(shop, "Keukenhuis", "Kitchen");
    const other = await pullSupplier(shop, "Tuinhout", "Garden");
    const created = await api(shop, "POST", "/api/v1/orders", {
      external_id: "5002",
      source: "WooCommerce",
      total: 45,
      shipping_address: { first_name: "A", last_name: "B", address1: "Street 1", postcode: "1000AA", city: "Amsterdam", country: "NL" },
      products: [
        { external_id: "31", name: "Blue mug", reference: "MUG-BLUE", category: "Kitchen", quantity: 2, price: 12.5 },
        { external_id: "32", name: "Red plate", reference: "PLATE-RED-L", category: "Kitchen", quantity: 1, price: 20 },
      ],
    });
    expect(created.status).toBe(200);
    const reference = String(created.json.reference);
    const [mugs, plate] = await until(async () => {
      const lines = (await api(shop, "GET", `/api/v1/orders/${reference}`)).json.order_lines as { id: number; current_status: string }[];
      return lines.length === 2 && lines.every((l) => l.current_status === "ruled") ? lines : null;
    }, "the order to reach Keukenhuis");

    // Keukenhuis ships the mugs and declines the plate; no other supplier takes it.
    const answered = await supplierApi(first.key, "POST", "/api/v1/supplier/answers", {
      answers: [
        { line_id: mugs.id, action: "ship", quantity: 2, carrier: "PostNL", tracking_number: "3SABC123" },
        { line_id: plate.id, action: "decline", reason: "discontinued" },
      ],
    });
    expect(answered.status).toBe(200);
    await settled(reference, 3);
    expect((await shopNow(wc)).state.orders[0].status).toBe("on-hold");

    await page.goto(`/console/orders/${reference}`);
    expect(await shopColumn("What")).toEqual(["Private note order_line.status_changed", "Shipment order_line.shipped", expect.stringMatching(/^Order put on hold order_line\./)]);
    expect(await shopColumn("Status")).toEqual(["Written", "Written", "Written"]);
    await expectAccessible(page);

    // Send to a supplier… on the declined plate: Tuinhout.
    await card(plate.id).getByRole("button", { name: `Send to a supplier… (line #${plate.id})` }).click();
    await page.waitForURL(`**/console/orders/${reference}/lines/${plate.id}/assign`);
    await expectAccessible(page);
    await page.getByRole("radio", { name: /^Tuinhout ·/ }).check();
    await page.getByRole("button", { name: "Send to this supplier" }).click();
    await page.waitForURL(`**/console/orders/${reference}#line-${plate.id}`);
    expect(await page.locator(".flash").innerText()).toBe(`Line #${plate.id} of order ${reference} is being sent to supplier Tuinhout.`);
    await settled(reference, 5);
    let held = (await shopNow(wc)).state.orders[0];
    // Off hold, not completed: the plate is with Tuinhout and has not shipped.
    expect(held.status).toBe("processing");
    expect(held.notes[1].note).toBe("Red plate (32, SKU PLATE-RED-L) × 1 is now with supplier Tuinhout, sent there by hand.");
    await page.reload();
    expect((await shopColumn("What")).slice(3)).toEqual(["Private note order_line.assigned", expect.stringMatching(/^Order taken off hold order_line\./)]);
    await expectAccessible(page);

    // Tuinhout ships the plate: only now is the order completed.
    await until(async () => {
      const open = (await supplierApi(other.key, "GET", "/api/v1/supplier/orders")).json.data as { order: { reference: string } }[];
      return open.some((d) => d.order.reference === reference);
    }, "Tuinhout to see the order");
    const shipped = await supplierApi(other.key, "POST", "/api/v1/supplier/answers", {
      answers: [{ line_id: plate.id, action: "ship", quantity: 1, carrier: "DHL", tracking_number: "JJD000123" }],
    });
    expect(shipped.status).toBe(200);
    await settled(reference, 7);
    const { state, received } = await shopNow(wc);
    held = state.orders[0];
    expect(held.status).toBe("completed");
    expect(held.notes.map((n) => n.note).reverse()).toEqual([
      expect.stringMatching(/^Red plate \(32, SKU PLATE-RED-L\) × 1 was declined, and no other supplier takes it\. .*discontinued/),
      "Order status changed from Processing to On hold.",
      "Red plate (32, SKU PLATE-RED-L) × 1 is now with supplier Tuinhout, sent there by hand.",
      "Order status changed from On hold to Processing.",
      "Order status changed from Processing to Completed.",
    ]);
    // Each status change once, in order; each note once.
    expect(received.filter((r) => r.method === "PUT").map((r) => JSON.parse(r.body).status)).toEqual(["on-hold", "processing", "completed"]);
    expect(received.filter((r) => r.method === "POST" && r.path.endsWith("/notes")).length).toBe(2);

    await page.reload();
    expect(await shopColumn("What")).toEqual([
      "Private note order_line.status_changed",
      "Shipment order_line.shipped",
      expect.stringMatching(/^Order put on hold order_line\./),
      "Private note order_line.assigned",
      expect.stringMatching(/^Order taken off hold order_line\./),
      "Shipment order_line.shipped",
      expect.stringMatching(/^Order completed /),
    ]);
    expect(await shopColumn("Status")).toEqual(Array(7).fill("Written"));
    await expectAccessible(page);
  });
});
