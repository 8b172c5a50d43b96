// "Add shipment" on the order page (src/orders/shipment-by-hand.pages.tsx over
// src/forwarding/shipments-by-hand.ts): a manual supplier's line shipped through the console form
// reaches the stand-in WooCommerce shop as exactly one tracking, as a supplier's ship answer does;
// bad input is a 422 beside its field with nothing written; a double submit records one shipment.
import { describe, expect, it } from "vitest";
import { createAccount, createOrder, rows } from "../helpers/factories";
import { call } from "../helpers/http";
import { csrfOf, getPage, postForm, signIn } from "../helpers/console-http";
import { shopConnection, writeBacksSettled } from "../helpers/shops";
import { supplierChain } from "../helpers/suppliers";
import { waitFor } from "../helpers/wait";
import { createStandInShop, standInShop } from "../shops/stand-ins/client";
import type { WooState } from "../shops/stand-ins/woocommerce";

const TRACKINGS = "/wp-json/wc-shipment-tracking/v3/orders/4711/shipment-trackings";

/** The shipment form's token (its hidden shipment_id) of a line on the order page. */
const tokenOf = (html: string, path: string) => {
  const form = html.slice(html.indexOf(`action="${path}"`));
  return /name="shipment_id" value="([^"]+)"/.exec(form)![1];
};
/** The error message shown beside one of a line's fields. */
const errorBeside = (html: string, lineId: number, field: string) => new RegExp(`id="ship-${lineId}-${field}-error"[^>]*>([^<]*)<`).exec(html)?.[1];

async function setUp(channel: "manual" | "pull") {
  const creds = await createAccount();
  const shop = await createStandInShop("woocommerce", {
    orders: [{ id: 4711, line_items: [{ id: 31, product_id: 501, sku: "MUG-BLUE", name: "Blue mug", quantity: 2 }, { id: 32, product_id: 502, sku: "PLATE-RED-L", name: "Red plate", quantity: 1 }] }],
  });
  await shopConnection(creds.accountId, "woocommerce", shop);
  const [{ supplier }] = await supplierChain(creds, [{ channel }]);
  const { reference } = await createOrder(creds, {
    external_id: "4711",
    source: "WooCommerce",
    products: [
      { external_id: "31", name: "Blue mug", reference: "MUG-BLUE", quantity: 2, price: 12.5 },
      { external_id: "32", name: "Red plate", reference: "PLATE-RED-L", quantity: 1, price: 20 },
    ],
  });
  const waiting = channel === "manual" ? "manual" : "awaiting_pickup";
  await waitFor(async () => {
    const res = await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds });
    return res.json.data.length > 0 && res.json.data.every((d: { status: string }) => d.status === waiting);
  });
  const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
  const [mugs, plate] = order.order_lines.map((l: { id: number }) => l.id) as number[];
  const orderId = (await rows<{ id: number }>("SELECT id FROM orders WHERE reference = ?", reference))[0].id;
  const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
  return { creds, shop, supplier, reference, orderId, mugs, plate, jar };
}

/** What is written about the order: its shipments, log entries and events (none may change on a refusal). */
const written = async (orderId: number, accountId: number) => ({
  shipments: await rows("SELECT * FROM shipments WHERE order_id = ?", orderId),
  logs: await rows("SELECT id, message FROM order_line_logs WHERE order_id = ? ORDER BY id", orderId),
  events: await rows("SELECT id, type FROM events WHERE account_id = ? ORDER BY id", accountId),
});

describe("Add shipment on the order page", () => {
  it("a manual supplier's line: refused beside its fields with nothing written, a double submit recorded once, and the shop gets its one tracking", async () => {
    const { creds, shop, supplier, reference, orderId, mugs, jar } = await setUp("manual");
    const page = await getPage(`/console/orders/${reference}`, jar);
    expect(page.status).toBe(200);
    const path = `/console/orders/${reference}/lines/${mugs}/shipments`;
    expect(page.html).toContain(`action="${path}"`);
    const fields = { _csrf: csrfOf(page.html), shipment_id: tokenOf(page.html, path), carrier: "PostNL", tracking_url: "https://track.example.com/3SABC123" };
    const before = await written(orderId, creds.accountId);

    // Bad input: a 422 naming the field beside it, what was typed kept, nothing written.
    const refusals: [Record<string, string>, string, string][] = [
      [{ quantity: "0", tracking_number: "3SABC123" }, "quantity", "The Quantity shipped field must be at least 1."],
      [{ quantity: "3", tracking_number: "3SABC123" }, "quantity", `The Quantity shipped field must not be greater than 2, what is left to ship of line ${mugs} (0 of 2 shipped).`],
      [{ quantity: "2", tracking_number: "T".repeat(256) }, "tracking_number", "The Tracking number field must not be greater than 255 characters."],
    ];
    for (const [sent, field, message] of refusals) {
      const res = await postForm(path, jar, { ...fields, ...sent });
      const html = await res.text();
      expect(res.status, html).toBe(422);
      expect(errorBeside(html, mugs, field)).toBe(message);
      expect(html).toContain(`value="${sent[field]}"`);
      expect(await written(orderId, creds.accountId)).toEqual(before);
    }

    // Part of it without a tracking number, the same form sent twice (a double submit): one shipment.
    for (let i = 0; i < 2; i++) {
      const res = await postForm(path, jar, { ...fields, quantity: "1", carrier: "Own van", tracking_url: "" });
      expect(res.status).toBe(303);
      expect(res.headers.get("location")).toBe(`/console/orders/${reference}#line-${mugs}`);
    }
    // Then the most that is left (1), from the page as it is now (a new form, a new token).
    const again = await getPage(`/console/orders/${reference}`, jar);
    expect(again.html).toContain(`max="1"`);
    const rest = await postForm(path, jar, { ...fields, shipment_id: tokenOf(again.html, path), quantity: "1", tracking_number: "3SABC123" });
    expect(rest.status).toBe(303);
    const after = await written(orderId, creds.accountId);
    expect(after.shipments.map((s) => [s.order_line_id, s.quantity, s.carrier, s.tracking_number, s.tracking_url])).toEqual([
      [mugs, 1, "Own van", null, null],
      [mugs, 1, "PostNL", "3SABC123", "https://track.example.com/3SABC123"],
    ]);
    expect(after.events.filter((e) => e.type === "order_line.shipped")).toHaveLength(2);

    // The line's log says the supplier shipped it and who recorded it; the API shows the line as any shipped line.
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    const line = order.order_lines.find((l: { id: number }) => l.id === mugs);
    expect(line.current_status).toBe("completed");
    const byHand = "; recorded by hand \\(console session #\\d+, API key #\\d+\\)$";
    expect(line.logs.slice(-3).map((l: { message: string }) => l.message)).toEqual([
      expect.stringMatching(new RegExp(`^Accepted by supplier ${supplier.name}${byHand}`)),
      expect.stringMatching(new RegExp(`^Shipped 1 by supplier ${supplier.name} via Own van${byHand}`)),
      expect.stringMatching(new RegExp(`^Shipped 1 by supplier ${supplier.name} via PostNL \\(tracking 3SABC123\\)${byHand}`)),
    ]);

    // The shop: exactly one tracking, and the order not completed (the plate is still with the supplier).
    await writeBacksSettled(orderId, 2);
    const held = await standInShop<WooState>(shop);
    expect(held.state.orders[0].trackings.map((t) => [t.tracking_number, t.tracking_provider, t.tracking_link])).toEqual([
      ["3SABC123", "PostNL", "https://track.example.com/3SABC123"],
    ]);
    expect(held.received.filter((r) => r.method === "POST" && r.path === TRACKINGS)).toHaveLength(1);
    expect(held.state.orders[0].status).not.toBe("completed");

    // Shipped in full: the page offers no more shipment for it, and shows the one it has.
    const shown = await getPage(`/console/orders/${reference}`, jar);
    expect(shown.html).not.toContain(`action="${path}"`);
  });

  it("a line its supplier reports itself (pull) offers no shipment form, and a posted one is refused with nothing written", async () => {
    const { creds, reference, orderId, mugs, jar } = await setUp("pull");
    const page = await getPage(`/console/orders/${reference}`, jar);
    const path = `/console/orders/${reference}/lines/${mugs}/shipments`;
    expect(page.html).not.toContain(`action="${path}"`);
    const before = await written(orderId, creds.accountId);
    const res = await postForm(path, jar, { _csrf: csrfOf(page.html), shipment_id: "console-x", quantity: "1", tracking_number: "3SABC123" });
    const html = await res.text();
    expect(res.status).toBe(409);
    expect(html).toContain(`Order line ${mugs} is not with a manual supplier nor completed by hand: its supplier reports its shipments.`);
    expect(await written(orderId, creds.accountId)).toEqual(before);
  });
});
