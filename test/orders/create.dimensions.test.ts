// Height, width, length and weight per line, as PrestaShop 1.7's module sends them: stored, read
// back, offered to routing rules and put in what suppliers receive.
import { describe, expect, it } from "vitest";
import { buildDocument, csvRows, emailText, toCsv } from "../../src/forwarding/document";
import { createAccount, orderPayload, unique } from "../helpers/factories";
import { call } from "../helpers/http";
import { httpBuildQuery } from "../helpers/php-form";
import { assignTo, createRule, createSupplier, matchNow } from "../helpers/routing";

/**
 * dropday-io/PrestaShop 1.7.0 getOrderData(): each product as json_encode writes it, with
 * (float) $productObj->height, ->width, ->depth (sent as length) and $product['product_weight'];
 * a product without sizes sends 0.0.
 */
function prestashopOrder() {
  return `{"external_id":"${unique("XKBKNABJK")}","source":"Mijn Winkel","total":61.5,"shipping_cost":7.0,
    "shipping":{"name":"PostNL","description":"Levering binnen 2 dagen","cost":7.0,"note":"","delivery_date":""},
    "email":"klant@example.nl","shipping_address":{"first_name":"Anna","last_name":"Jansen","company_name":"",
    "address1":"Hoofdstraat 5","address2":"","postcode":"1011 AB","city":"Amsterdam","country":"Nederland","phone":""},
    "products":[
      {"external_id":19,"name":"Koffiemok","reference":"demo_19","quantity":2,"price":11.9,"purchase_price":5.49,
       "image_url":null,"brand":"Studio Design","category":"Huis","supplier":"","height":12.5,"width":9.0,"length":9.0,"weight":0.35},
      {"external_id":20,"name":"Cadeaubon","reference":"demo_20","quantity":1,"price":25.0,"purchase_price":0.0,
       "image_url":null,"brand":"","category":"Cadeau","supplier":"","height":0.0,"width":0.0,"length":0.0,"weight":0.0}
    ],"test":true}`;
}

describe("line dimensions", () => {
  it("stores PrestaShop's height, width, length and weight and reads them back on each line", async () => {
    const creds = await createAccount();
    const res = await call("POST", "/api/v1/orders", { creds, rawBody: prestashopOrder(), headers: { "content-type": "application/json" } });
    expect(res.status, res.text).toBe(200);
    const order = (await call("GET", `/api/v1/orders/${res.json.reference}`, { creds })).json;
    const dims = order.order_lines.map((l: any) => [l.height, l.width, l.length, l.weight]);
    expect(dims).toEqual([[12.5, 9, 9, 0.35], [0, 0, 0, 0]]);
    // After the spec's fields, in this order.
    expect(Object.keys(order.order_lines[0]).slice(-5)).toEqual(["height", "width", "length", "weight", "logs"]);
    const listed = (await call("GET", `/api/v1/orders?include_test=true`, { creds })).json.data[0];
    expect(listed.order_lines.map((l: any) => [l.height, l.width, l.length, l.weight])).toEqual(dims);
  });

  it("takes 0 to 1,000,000, numbers as strings (forms), and refuses anything else with a 422", async () => {
    const creds = await createAccount();
    const withDims = (dims: Record<string, unknown>) => orderPayload({ products: [{ external_id: "x", name: "y", quantity: 1, price: 1, ...dims }] });
    const ok = await call("POST", "/api/v1/orders", { creds, body: withDims({ height: 1_000_000, width: "0", length: "12,5", weight: null }) });
    expect(ok.status, ok.text).toBe(200);
    const line = (await call("GET", `/api/v1/orders/${ok.json.reference}`, { creds })).json.order_lines[0];
    expect([line.height, line.width, line.length, line.weight]).toEqual([1_000_000, 0, 12.5, null]);

    const form = await call("POST", "/api/v1/orders", {
      creds,
      rawBody: httpBuildQuery(withDims({ height: "10.5", width: "", weight: "2" })),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    const formLine = (await call("GET", `/api/v1/orders/${form.json.reference}`, { creds })).json.order_lines[0];
    expect([formLine.height, formLine.width, formLine.length, formLine.weight]).toEqual([10.5, null, null, 2]);

    const bad = await call("POST", "/api/v1/orders", { creds, body: withDims({ height: 1_000_000.01, width: -1, length: "lang", weight: true }) });
    expect(bad.json).toEqual({
      message: "Errors",
      errors: {
        "products.0.height": ["The products.0.height field must not be greater than 1000000."],
        "products.0.width": ["The products.0.width field must be at least 0."],
        "products.0.length": ["The products.0.length field must be a number."],
        "products.0.weight": ["The products.0.weight field must be a number."],
      },
    });
  });

  it("offers them to routing rules as number variables", async () => {
    const creds = await createAccount();
    const heavy = await createSupplier(creds, { name: "Freight" });
    const parcel = await createSupplier(creds, { name: "Parcel" });
    await createRule(creds, { priority: 10, conditions: [{ variable: "line.weight", operator: "greater_than", value: 30 }], action: assignTo(heavy.id) });
    await createRule(creds, {
      priority: 20,
      match: "all",
      conditions: [
        { variable: "line.height", operator: "smaller_than", value: "50" },
        { variable: "line.width", operator: "is_not_empty" },
        { variable: "line.length", operator: "in_list", value: [20, 30] },
      ],
      action: assignTo(parcel.id),
    });
    const product = (name: string, dims: Record<string, number>) => ({ external_id: name, name, quantity: 1, price: 1, ...dims });
    const res = await call("POST", "/api/v1/orders", {
      creds,
      body: orderPayload({
        products: [
          product("sofa", { height: 90, width: 200, length: 90, weight: 55.5 }),
          product("lamp", { height: 40, width: 20, length: 20, weight: 2 }),
          product("rug", { height: 1, length: 300, weight: 4 }),
        ],
      }),
    });
    const order = await matchNow(creds, String(res.json.reference));
    expect(order.order_lines.map((l: any) => [l.external_id, l.matched_supplier?.name ?? null])).toEqual([
      ["sofa", "Freight"],
      ["lamp", "Parcel"],
      ["rug", null],
    ]);
    const refused = await call("POST", "/api/v1/routing-rules", {
      creds,
      body: { name: "x", conditions: [{ variable: "line.weight", operator: "contains", value: "1" }], action: assignTo(heavy.id) },
    });
    expect(refused.json.errors).toEqual({ "conditions.0.operator": ["The conditions.0.operator contains does not fit the number variable line.weight."] });
  });

  it("puts them in the supplier's document: JSON, CSV columns and the e-mail text", () => {
    const at = "2026-11-22T09:12:16.123000Z";
    const order = {
      id: 1, accountId: 1, reference: "4812039475610234", externalId: "1001", source: "Shop", test: false, blocked: false, total: 10, currency: null,
      email: null, shippingCost: null, shippingName: null, shippingDescription: null, shippingNote: null, shippingDeliveryDate: null,
      firstName: "A", lastName: "B", companyName: null, address1: "C 1", address2: null, postcode: "1000AA", city: "D", state: null,
      country: "NL", phone: null, custom: null, completedAt: null, routedAt: null, routeRequestedAt: at, routingAttempts: 0, parkedAt: null,
      routingError: null, createdAt: at, updatedAt: at,
    };
    const line = {
      id: 7, orderId: 1, accountId: 1, position: 0, externalId: "sofa", name: "Sofa", ean13: null, reference: "SOFA-1", quantity: 1,
      stockQuantity: null, price: 10, purchasePrice: 6, brand: null, category: null, supplier: null, imageUrl: null, custom: null,
      currentStatus: "ruled" as const, matchedSupplierId: 3, dispatchId: 5, confirmedQuantity: null, moveToken: null, createdAt: at, updatedAt: at,
      splitFromLineId: null, rerouteChain: null, rerouteReason: null, ackDueAt: null, shipDueAt: null, overdueAt: null, overdueDeadline: null,
      deadlineToken: null,
      manualDecision: null,
    };
    const dispatch = { id: 5, idempotencyKey: "dsp_5", createdAt: at } as Parameters<typeof buildDocument>[0];
    const doc = buildDocument(dispatch, order, { id: 3, name: "Freight" }, [
      { ...line, height: 90, width: 200, length: 90.5, weight: 55.25 },
      { ...line, id: 8, externalId: "mug", name: "Mug", reference: null, height: null, width: null, length: null, weight: 0.35 },
      { ...line, id: 9, externalId: "card", name: "Card", reference: null, height: null, width: null, length: null, weight: null },
    ]);
    expect(doc.lines.map((l) => [l.height, l.width, l.length, l.weight])).toEqual([[90, 200, 90.5, 55.25], [null, null, null, 0.35], [null, null, null, null]]);
    const csv = toCsv(csvRows(doc)).split("\r\n");
    expect(csv[0]).toContain(",quantity,purchase_price,height,width,length,weight,ship_to_name,");
    expect(csv[1]).toContain(",Sofa,1,6,90,200,90.5,55.25,A B,");
    expect(csv[2]).toContain(",Mug,1,6,,,,0.35,A B,");
    expect(csv[3]).toContain(",Card,1,6,,,,,A B,");
    const text = emailText(doc);
    expect(text).toContain("  1 x Sofa  (SKU SOFA-1, EAN -, price 6, size 90 x 200 x 90.5 (h x w x l), weight 55.25)\n");
    expect(text).toContain("  1 x Mug  (SKU -, EAN -, price 6, weight 0.35)\n");
    expect(text).toContain("  1 x Card  (SKU -, EAN -, price 6)\n");
  });
});
