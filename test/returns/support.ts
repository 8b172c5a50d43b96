// Shared set-up of the returns tests: a WooCommerce stand-in shop with its connection, an account
// webhook for the return events, and an order of two lines routed to two suppliers (cups to a
// webhook supplier, the rest to a pull supplier), both shipped.
import { expect } from "vitest";
import { subscribe } from "../events/support";
import { createAccount, createOrder, rows } from "../helpers/factories";
import { remoteUrl } from "../helpers/fake-remote";
import { call, type Credentials } from "../helpers/http";
import { answered, shopConnection, ship } from "../helpers/shops";
import { awaitingPickup, supplierWithRule } from "../helpers/suppliers";
import { waitFor } from "../helpers/wait";
import { createStandInShop } from "../shops/stand-ins/client";

export const RETURN_EVENTS = ["return.requested", "return.authorised", "return.declined", "return.in_transit", "return.received", "return.credited", "return.closed", "return.cancelled"];

export const supplierCall = (key: string, method: string, path: string, body?: unknown) => call(method, path, { headers: { authorization: `Bearer ${key}` }, body });
export const answerReturn = (key: string, id: number, body: Record<string, unknown>) => supplierCall(key, "POST", `/api/v1/supplier/returns/${id}/answer`, body);
export const requestReturn = (creds: Credentials, reference: string, body: unknown) => call("POST", `/api/v1/orders/${reference}/returns`, { creds, body });

async function keyOf(creds: Credentials, supplierId: number): Promise<string> {
  const res = await call("POST", `/api/v1/suppliers/${supplierId}/keys`, { creds, body: {} });
  expect(res.status, res.text).toBe(201);
  return res.json.key;
}

export type Shipped = Awaited<ReturnType<typeof shippedOrder>>;

/** Cups (2 mugs) to a webhook supplier, plates (1) to a pull supplier, everything shipped; `options.shop`: with a WooCommerce stand-in and its connection. */
export async function shippedOrder(options: { shop?: boolean; webhook?: boolean } = {}) {
  const creds = await createAccount();
  const shop = options.shop
    ? await createStandInShop("woocommerce", {
        orders: [
          {
            id: 4711,
            line_items: [
              { id: 31, product_id: 501, sku: "MUG-BLUE", name: "Blue mug", quantity: 2 },
              { id: 32, product_id: 502, sku: "PLATE-RED-L", name: "Red plate", quantity: 1 },
            ],
          },
        ],
      })
    : null;
  if (shop) await shopConnection(creds.accountId, "woocommerce", shop);
  const hook = options.webhook ? await subscribe(creds, "ok", RETURN_EVENTS) : null;
  const cupsUrl = remoteUrl("ok");
  const cups = await supplierWithRule(creds, { channel: "webhook", webhook_url: cupsUrl }, [{ variable: "line.brand", operator: "is", value: "cups" }]);
  const plates = await supplierWithRule(creds, { channel: "pull" });
  const cupsKey = await keyOf(creds, cups.supplier.id);
  const platesKey = await keyOf(creds, plates.supplier.id);
  const { reference } = await createOrder(creds, {
    external_id: "4711",
    source: "WooCommerce",
    products: [
      { external_id: "31", name: "Blue mug", reference: "MUG-BLUE", brand: "cups", quantity: 2, price: 12.5 },
      { external_id: "32", name: "Red plate", reference: "PLATE-RED-L", quantity: 1, price: 20 },
    ],
  });
  await awaitingPickup(platesKey, reference);
  // The webhook supplier's dispatch went out, the pull supplier's waits for it (awaitingPickup above).
  await waitFor(async () => {
    const d = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data as { status: string }[];
    return d.length === 2 && d.every((x) => x.status === "sent" || x.status === "awaiting_pickup");
  }, 8000);
  const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
  const byName = (name: string) => order.order_lines.find((l: { name: string }) => l.name === name).id as number;
  const mugs = byName("Blue mug");
  const plate = byName("Red plate");
  await answered(cupsKey, [ship(mugs, 2, "3SMUG1")]);
  await answered(platesKey, [ship(plate, 1, "3SPLATE1")]);
  const orderId = (await rows<{ id: number }>("SELECT id FROM orders WHERE reference = ?", reference))[0].id;
  return { creds, shop, hook, reference, orderId, mugs, plate, cups: { ...cups.supplier, key: cupsKey, url: cupsUrl }, plates: { ...plates.supplier, key: platesKey } };
}
