// What a body holds arrives whole: identifiers refuse control characters (a 422 naming each field),
// and custom keys such as "__proto__" are plain data, stored and read back as sent, in JSON and forms.
import { describe, expect, it } from "vitest";
import { createAccount, orderPayload, rows, unique } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { httpBuildQuery, multipartOf } from "../helpers/php-form";

const URLENCODED = "application/x-www-form-urlencoded";
const control = (field: string, code: string) => [`The ${field} field must not contain control characters (it holds ${code}).`];
const ordersOf = (creds: Credentials) => rows("SELECT id FROM orders WHERE account_id = ?", creds.accountId);

describe("control characters in identifiers", () => {
  it("refuses a NUL, ESC, DEL or C1 control in every identifier of an order at once, from JSON and from a form; free text keeps its line breaks", async () => {
    const creds = await createAccount();
    const payload = orderPayload({
      external_id: `${unique("nul")}\u0000`,
      source: "shop\u001b[31m",
      products: [{ ...orderPayload().products[0], external_id: "sku\u0000-1", ean13: "001234\u007f5678905", reference: "MUG\u0085BLUE", supplier: "Mug\tSupplier" }],
    });
    const errors = {
      external_id: control("external_id", "U+0000"),
      source: control("source", "U+001B"),
      "products.0.external_id": control("products.0.external_id", "U+0000"),
      "products.0.ean13": control("products.0.ean13", "U+007F"),
      "products.0.reference": control("products.0.reference", "U+0085"),
      "products.0.supplier": control("products.0.supplier", "U+0009"),
    };
    const json = await call("POST", "/api/v1/orders", { creds, body: payload });
    expect([json.status, json.json]).toEqual([422, { message: "Errors", errors }]);
    const form = await call("POST", "/api/v1/orders", { creds, rawBody: httpBuildQuery(payload), headers: { "content-type": URLENCODED } });
    expect([form.status, form.json]).toEqual([422, { message: "Errors", errors }]);
    expect(await ordersOf(creds)).toEqual([]);

    // Free text keeps its line breaks and tabs: only identifiers refuse control characters.
    const text = orderPayload({ shipping: { note: "Ring twice\nthen wait\tplease" }, products: [{ ...orderPayload().products[0], name: "Mug\nblue" }] });
    const created = await call("POST", "/api/v1/orders", { creds, body: text });
    expect(created.status).toBe(200);
    const shown = await call("GET", `/api/v1/orders/${created.json.reference}`, { creds });
    expect([shown.json.shipping.note, shown.json.order_lines[0].name]).toEqual(["Ring twice\nthen wait\tplease", "Mug\nblue"]);
  });

  it("refuses control characters in a supplier's name and code, which lines name it by", async () => {
    const creds = await createAccount();
    const created = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Tuin\u0000hout", code: "T\u0007H" } });
    expect([created.status, created.json]).toEqual([422, { message: "Errors", errors: { name: control("name", "U+0000"), code: control("code", "U+0007") } }]);
    const supplier = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Tuinhout" } });
    expect(supplier.status).toBe(201);
    const updated = await call("PATCH", `/api/v1/suppliers/${supplier.json.id}`, { creds, body: { name: "Tuin\u001fhout", code: "\u0000" } });
    expect([updated.status, updated.json]).toEqual([422, { message: "Errors", errors: { name: control("name", "U+001F"), code: control("code", "U+0000") } }]);
    expect((await rows("SELECT name, code FROM suppliers WHERE account_id = ?", creds.accountId))).toEqual([{ name: "Tuinhout", code: null }]);
  });
});

describe('custom keys such as "__proto__" are data', () => {
  const CUSTOM = '{"__proto__":{"x":"1"},"constructor":{"prototype":"2"},"toString":"3"}';
  const LINE_CUSTOM = '{"__proto__":"y","hasOwnProperty":"z"}';

  async function readBack(creds: Credentials, send: { rawBody: BodyInit; headers?: Record<string, string> }) {
    const created = await call("POST", "/api/v1/orders", { creds, ...send });
    expect(created.status, created.text).toBe(200);
    return (await call("GET", `/api/v1/orders/${created.json.reference}`, { creds })).text;
  }

  it("stores and returns them byte for byte from JSON, urlencoded and multipart bodies", async () => {
    const creds = await createAccount();
    const order = (externalId: string) =>
      JSON.stringify(orderPayload({ external_id: externalId }))
        .replace('"custom":{"color":"blue"}', `"custom":${LINE_CUSTOM}`)
        .replace(/}$/, `,"custom":${CUSTOM}}`);
    // The same order as PHP fields: JSON.parse keeps "__proto__" as a plain key, so the form is its twin.
    const fields = (externalId: string) => JSON.parse(order(externalId));
    const reads = [
      await readBack(creds, { rawBody: order(unique("proto")), headers: { "content-type": "application/json" } }),
      await readBack(creds, { rawBody: httpBuildQuery(fields(unique("proto"))), headers: { "content-type": URLENCODED } }),
      await readBack(creds, { rawBody: multipartOf(fields(unique("proto"))) }),
    ];
    for (const text of reads) {
      expect(text).toContain(`"custom":${CUSTOM}`);
      expect(text).toContain(`"custom":${LINE_CUSTOM}`);
    }
  });
});
