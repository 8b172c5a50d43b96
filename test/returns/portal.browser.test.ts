// Returns in the supplier portal, in a real browser (the Done when, its portal half): a
// shipped order with lines of two suppliers is returned in part through the API; each supplier
// authorises, the customer's tracking is added, one supplier receives and credits through the API,
// and the other receives through the portal and closes with no credit. The portal shows only the
// supplier's own open returns with the answers their state takes, a receipt above what came back is
// refused beside its field with what was typed kept, and the account's webhook hears return.closed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, createShop, expectAccessible, newPage, pullSupplier, signInSupplier, supplierApi, until, unique, webhookReceiver, type Shop } from "../browser/console";

let shop: Shop;
beforeAll(async () => {
  shop = await createShop();
});
afterAll(closeBrowser);

const ok = (res: { status: number; text?: string }, status = 200) => expect(res.status, res.text).toBe(status);

describe("returns in the supplier portal", () => {
  it("THE RETURN FLOW: the second supplier receives through the portal and closes with no credit, the first answers through the API", async () => {
    const hooks = await webhookReceiver();
    try {
      ok(await api(shop, "POST", "/api/v1/webhooks", { url: hooks.url, events: ["return.closed"] }), 201);
      const mugs = await pullSupplier(shop, "Mugs BV", "mugs");
      const plates = await pullSupplier(shop, "Plates BV", "plates");
      const external = unique("RET");
      const created = await api(shop, "POST", "/api/v1/orders", {
        external_id: external,
        source: "Returns test",
        total: 45,
        shipping_address: { first_name: "Eva", last_name: "Visser", address1: "Kade 5", postcode: "1013AA", city: "Amsterdam", country: "NL" },
        products: [
          { external_id: "M1", name: "Blue mug", category: "mugs", quantity: 2, price: 12.5 },
          { external_id: "P1", name: "Red plate", category: "plates", quantity: 1, price: 20 },
        ],
      });
      ok(created);
      const reference = String(created.json.reference);
      await until(async () => {
        const d = (await api(shop, "GET", `/api/v1/orders/${reference}/dispatches`)).json.data as { status: string }[];
        return d.length === 2 && d.every((x) => x.status === "awaiting_pickup");
      }, "both dispatches to await pickup");
      const lines = (await api(shop, "GET", `/api/v1/orders/${reference}`)).json.order_lines as { id: number; name: string }[];
      const mug = lines.find((l) => l.name === "Blue mug")!.id;
      const plate = lines.find((l) => l.name === "Red plate")!.id;
      ok(await supplierApi(mugs.key, "POST", "/api/v1/supplier/answers", { answers: [{ line_id: mug, action: "ship", quantity: 2, carrier: "PostNL", tracking_number: "3SMUG" }] }));
      ok(await supplierApi(plates.key, "POST", "/api/v1/supplier/answers", { answers: [{ line_id: plate, action: "ship", quantity: 1, carrier: "PostNL", tracking_number: "3SPLATE" }] }));

      // Returned in part: one of two mugs, the plate.
      const requested = await api(shop, "POST", `/api/v1/orders/${reference}/returns`, { lines: [{ line_id: mug, quantity: 1, reason: "Chipped" }, { line_id: plate, quantity: 1, reason: "Wrong colour" }] });
      ok(requested, 201);
      const [mugReturn, plateReturn] = requested.json.data as { id: number }[];
      ok(await supplierApi(mugs.key, "POST", `/api/v1/supplier/returns/${mugReturn.id}/answer`, { action: "authorise", rma: "RMA-M1", return_address: "Mugs BV, Dock 1" }));
      ok(await supplierApi(plates.key, "POST", `/api/v1/supplier/returns/${plateReturn.id}/answer`, { action: "authorise", rma: "RMA-P1", return_address: "Plates BV, Kade 2" }));
      for (const id of [mugReturn.id, plateReturn.id]) ok(await api(shop, "POST", `/api/v1/returns/${id}/tracking`, { tracking_number: `3SRET${id}`, carrier: "PostNL" }));
      ok(await supplierApi(mugs.key, "POST", `/api/v1/supplier/returns/${mugReturn.id}/answer`, { action: "receive", lines: [{ line_id: mug, quantity: 1, condition: "opened" }] }));
      ok(await supplierApi(mugs.key, "POST", `/api/v1/supplier/returns/${mugReturn.id}/answer`, { action: "credit", amount: 12.5, currency: "EUR" }));

      // The plates supplier in its portal: its one open return, in transit, to be received.
      const page = await newPage();
      await signInSupplier(page, plates.key);
      await page.getByRole("link", { name: "Returns" }).click();
      await page.waitForURL("**/supplier/returns");
      const card = page.locator("article.return");
      expect(await card.locator("h2").allInnerTexts()).toEqual([`Order ${reference} return #${plateReturn.id}`]);
      expect(await card.locator("header .badge").innerText()).toBe("In transit");
      expect(await card.locator("p.muted").first().innerText()).toMatch(new RegExp(` · RMA RMA-P1 · customer's parcel PostNL 3SRET${plateReturn.id}$`));
      expect(await card.locator(".dispatch-lines li").innerText()).toMatch(new RegExp(`^1 × Red plate\\nSKU — · line #${plate} · reason: Wrong colour$`));
      expect((await card.locator("summary").allInnerTexts()).map((t) => t.replace(/\s+/g, " "))).toEqual([`Receive… return #${plateReturn.id}`]);

      // Two plates for one sent back: refused beside the field, what was typed kept.
      await card.locator("summary").click();
      const quantity = page.locator(`#return-${plateReturn.id}-receive-quantity_${plate}`);
      await quantity.fill("2");
      await page.getByLabel("Condition").selectOption("damaged");
      await expectAccessible(page);
      await page.getByRole("button", { name: `Confirm receipt return #${plateReturn.id}` }).click();
      await page.waitForLoadState("domcontentloaded");
      expect(await page.locator(`#return-${plateReturn.id}-receive-quantity_${plate}-error`).innerText()).toBe(
        `The Quantity received of Red plate field must not be greater than 1, what return ${plateReturn.id} asks back of line ${plate}.`,
      );
      expect(await quantity.getAttribute("aria-invalid")).toBe("true");
      expect(await quantity.inputValue()).toBe("2");
      expect(await page.getByLabel("Condition").inputValue()).toBe("damaged");
      expect((await api(shop, "GET", `/api/v1/returns/${plateReturn.id}`)).json.status).toBe("in_transit");

      await quantity.fill("1");
      await page.getByRole("button", { name: `Confirm receipt return #${plateReturn.id}` }).click();
      await page.waitForURL("**/supplier/returns");
      expect(await page.locator(".flash").innerText()).toContain(`Return ${plateReturn.id} (order ${reference}) received.`);
      expect((await card.locator("summary").allInnerTexts()).map((t) => t.replace(/\s+/g, " "))).toEqual([`Credit… return #${plateReturn.id}`, `Close without credit… return #${plateReturn.id}`]);

      // Closed with no credit: off the list.
      await card.locator("summary", { hasText: "Close without credit" }).click();
      await page.getByLabel("Reason").fill("Broken by the customer's packaging");
      await page.getByRole("button", { name: `Close return return #${plateReturn.id}` }).click();
      await page.waitForURL("**/supplier/returns");
      expect(await page.getByRole("heading", { name: "No return waits for you" }).isVisible()).toBe(true);
      await expectAccessible(page);

      // What the shop sees: both returns done, every answer logged by who gave it.
      const plateSeen = (await api(shop, "GET", `/api/v1/returns/${plateReturn.id}`)).json;
      expect(plateSeen).toMatchObject({ status: "closed", close_reason: "Broken by the customer's packaging", credit: null, lines: [{ line_id: plate, quantity: 1, received_quantity: 1, condition: "damaged" }] });
      expect(plateSeen.logs.slice(-3).map((l: { status: string; by: string }) => [l.status, l.by])).toEqual([
        ["received", "supplier Plates BV (portal)"],
        ["received", "supplier Plates BV (portal)"],
        ["closed", "supplier Plates BV (portal)"],
      ]);
      expect((await api(shop, "GET", `/api/v1/returns/${mugReturn.id}`)).json).toMatchObject({ status: "credited", credit: { amount: 12.5, currency: "EUR" } });
      const closed = await until(async () => hooks.received.find((r) => JSON.parse(r.body).type === "return.closed"), "return.closed at the webhook");
      expect(JSON.parse(closed.body).data.return).toMatchObject({ id: plateReturn.id, status: "closed" });
      // What shipped bounds every return of the line: the second mug may come back, not a third.
      const more = await api(shop, "POST", `/api/v1/orders/${reference}/returns`, { lines: [{ line_id: mug, quantity: 2 }] });
      expect([more.status, Object.keys(more.json.errors)]).toEqual([422, ["lines.0.quantity"]]);
    } finally {
      await hooks.close();
    }
  });
});
