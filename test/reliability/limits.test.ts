// The service's limits, at and past each boundary: body size (413), lines per order, nesting and
// size of `custom`, and the length of every text field (422). Past a limit nothing is written.
import { describe, expect, it } from "vitest";
import { createAccount, orderPayload, rows } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { signedHeader } from "../helpers/suppliers";
import { expectDocumentedError } from "../helpers/invariants";

const MiB = 1024 * 1024;
const tooLarge = { message: "Payload Too Large", error: "The request body must not be larger than 1 MiB." };

const post = (creds: Credentials, body: unknown) => call("POST", "/api/v1/orders", { creds, body });
const raw = (creds: Credentials, rawBody: BodyInit) =>
  call("POST", "/api/v1/orders", { creds, rawBody, headers: { "content-type": "application/json" } });
const orderCount = async (accountId: number) => (await rows("SELECT id FROM orders WHERE account_id = ?", accountId)).length;

/** JSON text nested `depth` levels deep, built as text (no recursion on either side of the test). */
const nestedText = (depth: number, open = '{"k":', close = "}") => `${open.repeat(depth)}1${close.repeat(depth)}`;
const nested = (depth: number): unknown => JSON.parse(nestedText(depth));

function streamed(text: string) {
  const bytes = new TextEncoder().encode(text);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (let i = 0; i < bytes.length; i += 64 * 1024) controller.enqueue(bytes.slice(i, i + 64 * 1024));
      controller.close();
    },
  });
}

describe("body size", () => {
  it("answers 413 on every endpoint that takes a body, with or without Content-Length", async () => {
    const creds = await createAccount();
    const supplier = (await call("POST", "/api/v1/suppliers", { creds, body: { name: "Big" } })).json;
    const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key;
    const doc = (await call("GET", "/openapi.json")).json;
    const big = JSON.stringify({ name: "x".repeat(MiB) });
    const ids: Record<string, string> = { id: String(supplier.id), keyId: "1", reference: "1", supplierId: String(supplier.id), dispatchId: "1" };
    let checked = 0;
    for (const [template, operations] of Object.entries<Record<string, { requestBody?: unknown }>>(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        if (!op.requestBody && !template.startsWith("/api/v1/supplier-callbacks")) continue;
        // Feed files stream through their own, larger limit (test/catalogue covers it).
        if (template === "/api/v1/product-feeds/{id}/products") continue;
        const path = template.replace(/\{(\w+)\}/g, (_, name: string) => ids[name]);
        const headers: Record<string, string> = template.startsWith("/admin")
          ? { authorization: "Bearer test-admin-token" }
          : template.startsWith("/api/v1/supplier/")
            ? { authorization: `Bearer ${key}` }
            : template.startsWith("/api/v1/supplier-callbacks")
              ? { "x-webhook-signature": await signedHeader(supplier.webhook_secret, big) }
              : { "api-key": creds.apiKey, "account-id": String(creds.accountId) };
        for (const body of [big, streamed(big)]) {
          const res = await call(method.toUpperCase(), path, { rawBody: body, headers: { ...headers, "content-type": "application/json" } });
          expect(res.status, `${method} ${path}`).toBe(413);
          expect(res.json, `${method} ${path}`).toEqual(tooLarge);
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(15);
    expect(await orderCount(creds.accountId)).toBe(0);
  });
});

describe("lines per order", () => {
  it("accepts 500 lines and refuses 501 with a 422, writing nothing", async () => {
    const creds = await createAccount();
    const lines = (n: number) => Array.from({ length: n }, (_, i) => ({ external_id: `l${i}`, name: `Line ${i}`, quantity: 1, price: 1 }));
    const refused = await post(creds, orderPayload({ products: lines(501) }));
    expect(refused.status).toBe(422);
    expect(refused.json).toEqual({ message: "Errors", errors: { products: ["The products field must not have more than 500 items."] } });
    expect(await orderCount(creds.accountId)).toBe(0);

    const accepted = await post(creds, orderPayload({ products: lines(500) }));
    expect(accepted.json.message).toBe("Order created");
    expect((await rows("SELECT id FROM order_lines WHERE account_id = ?", creds.accountId)).length).toBe(500);
  });
});

describe("custom", () => {
  const deepMessage = (key: string) => `The ${key} field must not be nested more than 5 levels deep.`;
  const bigMessage = (key: string) => `The ${key} field must not be larger than 16 kilobytes.`;

  it("accepts 5 levels and refuses 6, on the order and on a line", async () => {
    const creds = await createAccount();
    const line = orderPayload().products[0];
    const refused = await post(creds, orderPayload({ custom: nested(6), products: [{ ...line, custom: nested(6) }] }));
    expect(refused.status).toBe(422);
    expect(refused.json).toEqual({ message: "Errors", errors: { custom: [deepMessage("custom")], "products.0.custom": [deepMessage("products.0.custom")] } });
    expect(await orderCount(creds.accountId)).toBe(0);
    const accepted = await post(creds, orderPayload({ custom: nested(5), products: [{ ...line, custom: nested(5) }] }));
    expect(accepted.json.message).toBe("Order created");
  });

  it("refuses hostile nesting (100,000 levels, objects and arrays) with a 422, not a 500", async () => {
    const creds = await createAccount();
    const base = JSON.stringify(orderPayload());
    for (const [open, close] of [['{"k":', "}"], ["[", "]"]]) {
      const deep = nestedText(100_000, open, close);
      const bodies = [
        base.replace(/}$/, `,"custom":{"a":${deep}}}`),
        base.replace('"custom":{"color":"blue"}', `"custom":{"a":${deep}}`),
        // Nesting where no object is expected at all.
        base.replace('"city":"Amsterdam"', `"city":${deep}`),
      ];
      for (const body of bodies) {
        expect(body.length).toBeLessThan(MiB);
        const res = await raw(creds, body);
        expectDocumentedError(res, body.slice(0, 200));
        expect(res.status).toBe(422);
      }
    }
    expect(await orderCount(creds.accountId)).toBe(0);
  });

  it("accepts 16 KiB and refuses more, however the size is made up", async () => {
    const creds = await createAccount();
    const padTo = (bytes: number) => {
      const empty = JSON.stringify({ pad: "" }).length;
      return { pad: "x".repeat(bytes - empty) };
    };
    const manyKeys = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`key${i}`, i]));
    const refused = await post(creds, orderPayload({ custom: padTo(16 * 1024 + 1), products: [{ ...orderPayload().products[0], custom: manyKeys }] }));
    expect(refused.status).toBe(422);
    expect(refused.json).toEqual({ message: "Errors", errors: { custom: [bigMessage("custom")], "products.0.custom": [bigMessage("products.0.custom")] } });
    // Multi-byte characters count as bytes.
    const emoji = await post(creds, orderPayload({ custom: { pad: "😀".repeat(4097) } }));
    expect(emoji.json).toEqual({ message: "Errors", errors: { custom: [bigMessage("custom")] } });
    expect(await orderCount(creds.accountId)).toBe(0);

    const accepted = await post(creds, orderPayload({ custom: padTo(16 * 1024) }));
    expect(accepted.json.message).toBe("Order created");
  });
});

describe("text length", () => {
  // Every text field of an order and its cap (the create-order contract).
  const CAPS: [string, number][] = [
    ["external_id", 255],
    ["source", 255],
    ["shipping.name", 255],
    ["shipping.description", 1000],
    ["shipping.note", 2000],
    ["shipping_address.first_name", 255],
    ["shipping_address.last_name", 255],
    ["shipping_address.company_name", 255],
    ["shipping_address.address1", 255],
    ["shipping_address.address2", 255],
    ["shipping_address.postcode", 32],
    ["shipping_address.city", 255],
    ["shipping_address.state", 255],
    ["shipping_address.phone", 64],
    ["products.0.external_id", 255],
    ["products.0.ean13", 64],
    ["products.0.name", 1000],
    ["products.0.reference", 255],
    ["products.0.image_url", 2048],
    ["products.0.brand", 255],
    ["products.0.category", 255],
    ["products.0.supplier", 255],
  ];

  function withLengths(extra: number) {
    const payload = orderPayload() as Record<string, any>;
    for (const [path, cap] of CAPS) {
      const keys = path.split(".");
      const parent = keys.slice(0, -1).reduce((cur, k) => cur[k], payload);
      parent[keys[keys.length - 1]] = "é".repeat(cap + extra);
    }
    return payload;
  }

  it("refuses every text field one character over its cap, all reported at once, writing nothing", async () => {
    const creds = await createAccount();
    const res = await post(creds, withLengths(1));
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: "Errors",
      errors: Object.fromEntries(CAPS.map(([path, cap]) => [path, [`The ${path} field must not be greater than ${cap} characters.`]])),
    });
    expect(await orderCount(creds.accountId)).toBe(0);
  });

  it("accepts every text field at its cap (characters, not bytes) and reads it back", async () => {
    const creds = await createAccount();
    const res = await post(creds, withLengths(0));
    expect(res.json.message).toBe("Order created");
    const shown = await call("GET", `/api/v1/orders/${res.json.reference}`, { creds });
    expect(shown.json.external_id).toBe("é".repeat(255));
    expect(shown.json.order_lines[0].image_url).toBe("é".repeat(2048));
  });

  it("refuses a country and an e-mail address far too long", async () => {
    const creds = await createAccount();
    const res = await post(creds, orderPayload({ email: `${"a".repeat(300)}@example.com`, shipping_address: { ...orderPayload().shipping_address, country: "N".repeat(10_000) } }));
    expect(res.status).toBe(422);
    expect(Object.keys(res.json.errors).sort()).toEqual(["email", "shipping_address.country"]);
    expect(res.json.errors["shipping_address.country"]).toEqual(["The shipping_address.country field must not be greater than 100 characters."]);
    expect(res.json.errors.email).toContain("The email field must not be greater than 255 characters.");
  });
});
