// Issue 31, "a manual supplier's shipment reaches a stand-in shop", in a real browser against the
// real Worker: a line of a manual supplier gets "Add shipment…" on its order page; a quantity past
// what is left is refused beside its field (nothing written); the shipment with its tracking is
// then added, and the stand-in WooCommerce shop (started here on loopback) holds exactly that one
// tracking, its order completed. axe on the page, refused and after.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, createShop, expectAccessible, expectRefusedBeside, newPage, signInShop, until, type Shop } from "../browser/console";
import { startStandIns } from "../shops/stand-ins/harness";
import { woocommerceStandIn, type WooState } from "../shops/stand-ins/woocommerce";

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

type Handle = { id: string; base_url: string; credentials: { consumer_key: string; consumer_secret: string } };
const standIn = async (path: string, body?: unknown) => {
  const res = await fetch(`${standIns.url}${path}`, { method: body === undefined ? "GET" : "POST", body: body === undefined ? undefined : JSON.stringify(body) });
  return res.json();
};
const held = async (wc: Handle) => ((await standIn(`/__shops/${wc.id}`)) as { state: WooState }).state.orders[0];

describe("Add shipment for a manual supplier's line", () => {
  it("is refused beside its field, then reaches the stand-in shop as one tracking, the shop's order completed", async () => {
    const wc = (await standIn("/__shops", {
      platform: "woocommerce",
      seed: { orders: [{ id: 5131, line_items: [{ id: 51, product_id: 611, sku: "VASE", name: "Vase", quantity: 2 }] }] },
    })) as Handle;
    const connection = await api(shop, "POST", "/api/v1/shop-connections", {
      platform: "woocommerce",
      name: "Our WooCommerce",
      base_url: wc.base_url,
      credentials: wc.credentials,
      settings: { mode: "live" },
    });
    expect(connection.status, JSON.stringify(connection.json)).toBe(201);
    const supplier = (await api(shop, "POST", "/api/v1/suppliers", { name: "Vases by phone", channel: "manual" })).json;
    await api(shop, "POST", "/api/v1/routing-rules", { name: "All to Vases by phone", conditions: [], action: { type: "assign_supplier", supplier_id: supplier.id } });
    const created = await api(shop, "POST", "/api/v1/orders", {
      external_id: "5131",
      source: "WooCommerce",
      total: 50,
      shipping_address: { first_name: "A", last_name: "B", address1: "Street 1", postcode: "1000AA", city: "Amsterdam", country: "NL" },
      products: [{ external_id: "51", name: "Vase", reference: "VASE", quantity: 2, price: 25 }],
    });
    expect(created.status).toBe(200);
    const reference = String(created.json.reference);
    const [line] = await until(async () => {
      const dispatches = (await api(shop, "GET", `/api/v1/orders/${reference}/dispatches`)).json.data as { status: string }[];
      if (dispatches[0]?.status !== "manual") return null;
      return (await api(shop, "GET", `/api/v1/orders/${reference}`)).json.order_lines as { id: number }[];
    }, "the line to wait with its manual supplier");

    await page.goto(`/console/orders/${reference}`);
    await page.getByText("Add shipment…").click();
    await page.getByLabel("Quantity shipped").fill("3");
    await page.getByLabel("Carrier").fill("PostNL");
    await page.getByLabel("Tracking number").fill("3SVASE5131");
    await page.getByLabel("Tracking URL").fill("https://track.example.com/3SVASE5131");
    const [refused] = await Promise.all([page.waitForResponse((r) => r.url().endsWith("/shipments")), page.getByRole("button", { name: "Add shipment" }).click()]);
    expect(refused.status()).toBe(422);
    await expectRefusedBeside(page, `ship-${line.id}-quantity`, `The Quantity shipped field must not be greater than 2, what is left to ship of line ${line.id} (0 of 2 shipped).`);
    expect(await page.getByLabel("Tracking number").inputValue()).toBe("3SVASE5131");
    expect((await api(shop, "GET", `/api/v1/orders/${reference}`)).json.order_lines[0].current_status).toBe("ruled");
    await expectAccessible(page);

    await page.getByLabel("Quantity shipped").fill("2");
    await page.getByRole("button", { name: "Add shipment" }).click();
    await page.waitForURL(`**/console/orders/${reference}#line-${line.id}`);
    expect(await page.locator(".flash").innerText()).toBe(`Shipment added to line #${line.id}.`);
    expect(await page.getByText("Add shipment…").count()).toBe(0);
    await expectAccessible(page);

    const tracking = await until(async () => (await held(wc)).trackings.find((t) => t.tracking_number === "3SVASE5131"), "the tracking to reach the shop");
    expect([tracking.tracking_provider, tracking.tracking_link]).toEqual(["PostNL", "https://track.example.com/3SVASE5131"]);
    await until(async () => ((await held(wc)).status === "completed" ? true : null), "the shop's order to be completed");
    expect((await held(wc)).trackings).toHaveLength(1);
  });
});
