// POST /api/v1/orders validation: the 422 shape, Laravel's wording, every failing field at once.
import { describe, expect, it } from "vitest";
import { createAccount, orderPayload, rows } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";

type Payload = ReturnType<typeof orderPayload>;

async function post(creds: Credentials, body: unknown) {
  return call("POST", "/api/v1/orders", { creds, body });
}

/** The default payload with changes applied to one line, the address or shipping. */
function withLine(changes: Record<string, unknown>): Payload {
  const p = orderPayload();
  return { ...p, products: [{ ...p.products[0], ...changes }] };
}
function withAddress(changes: Record<string, unknown>): Payload {
  const p = orderPayload();
  return { ...p, shipping_address: { ...p.shipping_address, ...changes } };
}
function withShipping(changes: Record<string, unknown>): Payload {
  const p = orderPayload();
  return { ...p, shipping: { ...p.shipping, ...changes } };
}

async function expectErrors(creds: Credentials, body: unknown, errors: Record<string, string[]>) {
  const res = await post(creds, body);
  expect(res.status, JSON.stringify(errors)).toBe(422);
  expect(res.json).toEqual({ message: "Errors", errors });
}

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 1 };
  for (let i = 1; i < depth; i++) value = { level: value };
  return value;
}

const COUNTRY_MESSAGE =
  "The selected shipping_address.country is invalid. Send an ISO 3166-1 code (NL, NLD) or the country's name; a name that could mean two countries (Congo, Korea) needs its qualifier.";

describe("POST /api/v1/orders: 422", () => {
  it("names every missing required field at once", async () => {
    const creds = await createAccount();
    await expectErrors(creds, {}, {
      external_id: ["The external_id field is required."],
      source: ["The source field is required."],
      total: ["The total field is required."],
      shipping_address: ["The shipping_address field is required."],
      products: ["The products field is required."],
    });
  });

  it("names missing address and line fields with dotted, zero-based paths", async () => {
    const creds = await createAccount();
    const p = orderPayload();
    await expectErrors(creds, { ...p, shipping_address: {}, products: [p.products[0], {}] }, {
      "shipping_address.first_name": ["The shipping_address.first_name field is required."],
      "shipping_address.last_name": ["The shipping_address.last_name field is required."],
      "shipping_address.address1": ["The shipping_address.address1 field is required."],
      "shipping_address.postcode": ["The shipping_address.postcode field is required."],
      "shipping_address.city": ["The shipping_address.city field is required."],
      "shipping_address.country": ["The shipping_address.country field is required."],
      "products.1.external_id": ["The products.1.external_id field is required."],
      "products.1.name": ["The products.1.name field is required."],
      "products.1.quantity": ["The products.1.quantity field is required."],
      "products.1.price": ["The products.1.price field is required."],
    });
  });

  it("treats an empty string, blank string or null in a required field as missing", async () => {
    const creds = await createAccount();
    const p = orderPayload({ external_id: "", source: "   ", total: null });
    await expectErrors(
      creds,
      {
        ...p,
        shipping_address: { ...p.shipping_address, first_name: "", city: null, country: " " },
        products: [{ ...p.products[0], external_id: "", name: " ", quantity: "", price: null }],
      },
      {
        external_id: ["The external_id field is required."],
        source: ["The source field is required."],
        total: ["The total field is required."],
        "shipping_address.first_name": ["The shipping_address.first_name field is required."],
        "shipping_address.city": ["The shipping_address.city field is required."],
        "shipping_address.country": ["The shipping_address.country field is required."],
        "products.0.external_id": ["The products.0.external_id field is required."],
        "products.0.name": ["The products.0.name field is required."],
        "products.0.quantity": ["The products.0.quantity field is required."],
        "products.0.price": ["The products.0.price field is required."],
      },
    );
  });

  it("requires at least one product", async () => {
    const creds = await createAccount();
    await expectErrors(creds, orderPayload({ products: [] }), { products: ["The products field is required."] });
  });

  it("checks types", async () => {
    const creds = await createAccount();
    await expectErrors(creds, orderPayload({ total: "a lot", test: "maybe", external_id: { id: 1 }, custom: "x" }), {
      total: ["The total field must be a number."],
      test: ["The test field must be true or false."],
      external_id: ["The external_id field must be a string."],
      custom: ["The custom field must be an object."],
    });
    await expectErrors(creds, orderPayload({ products: "mug", shipping_address: "Damrak 1" }), {
      products: ["The products field must be an array."],
      shipping_address: ["The shipping_address field must be an object."],
    });
    await expectErrors(creds, orderPayload({ shipping: "PostNL" }), { shipping: ["The shipping field must be an object."] });
    await expectErrors(creds, orderPayload({ products: ["mug"] }), { "products.0": ["The products.0 field must be an object."] });
    await expectErrors(creds, withLine({ price: "twelve", quantity: "two", custom: [1, 2], name: ["x"] }), {
      "products.0.price": ["The products.0.price field must be a number."],
      "products.0.quantity": ["The products.0.quantity field must be an integer."],
      "products.0.custom": ["The products.0.custom field must be an object."],
      "products.0.name": ["The products.0.name field must be a string."],
    });
    await expectErrors(creds, withAddress({ country: 31, phone: { n: 1 } }), {
      "shipping_address.country": ["The shipping_address.country field must be a string."],
      "shipping_address.phone": ["The shipping_address.phone field must be a string."],
    });
  });

  it("wants quantity a positive integer", async () => {
    const creds = await createAccount();
    for (const [quantity, message] of [
      [0, "The products.0.quantity field must be at least 1."],
      [-3, "The products.0.quantity field must be at least 1."],
      [1.5, "The products.0.quantity field must be an integer."],
      ["2.5", "The products.0.quantity field must be an integer."],
      [1_000_001, "The products.0.quantity field must not be greater than 1000000."],
    ] as const) {
      await expectErrors(creds, withLine({ quantity }), { "products.0.quantity": [message] });
    }
    const ok = await post(creds, withLine({ quantity: "3" }));
    expect(ok.status).toBe(200);
  });

  it("wants money at least 0", async () => {
    const creds = await createAccount();
    await expectErrors(
      creds,
      { ...withLine({ price: -0.01, purchase_price: "-1" }), total: -1, shipping_cost: -5, shipping: { cost: -4.95 } },
      {
        total: ["The total field must be at least 0."],
        shipping_cost: ["The shipping_cost field must be at least 0."],
        "shipping.cost": ["The shipping.cost field must be at least 0."],
        "products.0.price": ["The products.0.price field must be at least 0."],
        "products.0.purchase_price": ["The products.0.purchase_price field must be at least 0."],
      },
    );
    const free = await post(creds, { ...withLine({ price: 0, purchase_price: 0 }), total: 0, shipping: { cost: 0 } });
    expect(free.status).toBe(200);
  });

  it("caps string lengths", async () => {
    const creds = await createAccount();
    const p = withLine({ external_id: "x".repeat(256), name: "n".repeat(1001), image_url: `https://x/${"i".repeat(2048)}` });
    await expectErrors(
      creds,
      { ...p, external_id: "e".repeat(256), source: "s".repeat(256), shipping_address: { ...p.shipping_address, postcode: "1".repeat(33) } },
      {
        external_id: ["The external_id field must not be greater than 255 characters."],
        source: ["The source field must not be greater than 255 characters."],
        "shipping_address.postcode": ["The shipping_address.postcode field must not be greater than 32 characters."],
        "products.0.external_id": ["The products.0.external_id field must not be greater than 255 characters."],
        "products.0.name": ["The products.0.name field must not be greater than 1000 characters."],
        "products.0.image_url": ["The products.0.image_url field must not be greater than 2048 characters."],
      },
    );
    const atCap = await post(creds, orderPayload({ external_id: "e".repeat(255) }));
    expect(atCap.status).toBe(200);
  });

  it("wants a valid e-mail where one is given", async () => {
    const creds = await createAccount();
    await expectErrors(creds, { ...withAddress({ email: "jan@" }), email: "not an email" }, {
      email: ["The email field must be a valid email address."],
      "shipping_address.email": ["The shipping_address.email field must be a valid email address."],
    });
    expect((await post(creds, orderPayload({ email: "" }))).status).toBe(200);
    expect((await post(creds, orderPayload({ email: null }))).status).toBe(200);
  });

  it("wants delivery_date a real calendar date in DD-MM-YYYY", async () => {
    const creds = await createAccount();
    for (const date of ["31-02-2026", "29-02-2027", "32-01-2026", "01-13-2026", "tomorrow", "2026/11/30", "1-1-2026"]) {
      await expectErrors(creds, withShipping({ delivery_date: date }), {
        "shipping.delivery_date": ["The shipping.delivery_date field must be a valid date in the format DD-MM-YYYY."],
      });
    }
    await expectErrors(creds, withShipping({ delivery_date: 20261130 }), {
      "shipping.delivery_date": ["The shipping.delivery_date field must be a string."],
    });
    for (const [sent, stored] of [["29-02-2028", "2028-02-29"], ["31-12-2026", "2026-12-31"], ["2026-11-30", "2026-11-30"]]) {
      const res = await post(creds, withShipping({ delivery_date: sent }));
      expect(res.status).toBe(200);
      const shown = await call("GET", `/api/v1/orders/${res.json.reference}`, { creds });
      expect(shown.json.shipping.delivery_date).toBe(stored);
    }
  });

  it("bounds custom objects in depth and size", async () => {
    const creds = await createAccount();
    await expectErrors(creds, { ...withLine({ custom: nested(6) }), custom: nested(6) }, {
      custom: ["The custom field must not be nested more than 5 levels deep."],
      "products.0.custom": ["The products.0.custom field must not be nested more than 5 levels deep."],
    });
    const big = { blob: "x".repeat(16 * 1024) };
    await expectErrors(creds, { ...withLine({ custom: big }), custom: big }, {
      custom: ["The custom field must not be larger than 16 kilobytes."],
      "products.0.custom": ["The products.0.custom field must not be larger than 16 kilobytes."],
    });
    const ok = await post(creds, { ...withLine({ custom: nested(5) }), custom: { ...nested(5), list: [1, { a: 2 }] } });
    expect(ok.status).toBe(200);
  });

  it("answers 422, never 500, for hostile nesting (100,000 levels) anywhere", async () => {
    const creds = await createAccount();
    const deep = (open: string, close: string) => `${open.repeat(100_000)}1${close.repeat(100_000)}`;
    const objects = deep('{"a":', "}");
    const arrays = deep("[", "]");
    const json = (extra: string) => JSON.stringify(orderPayload()).replace(/}$/, `,${extra}}`);
    const cases: [string, Record<string, string[]>][] = [
      [`"custom":${objects}`, { custom: ["The custom field must not be nested more than 5 levels deep."] }],
      [`"custom":{"list":${arrays}}`, { custom: ["The custom field must not be nested more than 5 levels deep."] }],
      [`"source":${arrays}`, { source: ["The source field must be a string."] }],
    ];
    for (const [extra, errors] of cases) {
      const res = await call("POST", "/api/v1/orders", { creds, rawBody: json(extra), headers: { "content-type": "application/json" } });
      expect(res.status).toBe(422);
      expect(res.json).toEqual({ message: "Errors", errors });
    }
    // An unknown field is ignored however deep it is.
    const ignored = await call("POST", "/api/v1/orders", { creds, rawBody: json(`"unknown":${objects}`), headers: { "content-type": "application/json" } });
    expect(ignored.status).toBe(200);
  });

  it("refuses an unrecognisable country on shipping_address.country", async () => {
    const creds = await createAccount();
    for (const country of ["Atlantis", "XX", "Neverland (NV)", "12"]) {
      await expectErrors(creds, withAddress({ country }), {
        "shipping_address.country": [COUNTRY_MESSAGE],
      });
    }
  });

  it("reports every failing field of a mixed bad request at once", async () => {
    const creds = await createAccount();
    const p = orderPayload();
    await expectErrors(
      creds,
      {
        ...p,
        source: "",
        total: "abc",
        email: "nope",
        shipping: { ...p.shipping, delivery_date: "31-02-2026" },
        shipping_address: { ...p.shipping_address, country: "Atlantis", last_name: null },
        products: [p.products[0], { ...p.products[0], quantity: 0 }, { ...p.products[0], external_id: "" }],
      },
      {
        source: ["The source field is required."],
        total: ["The total field must be a number."],
        email: ["The email field must be a valid email address."],
        "shipping.delivery_date": ["The shipping.delivery_date field must be a valid date in the format DD-MM-YYYY."],
        "shipping_address.last_name": ["The shipping_address.last_name field is required."],
        "shipping_address.country": [COUNTRY_MESSAGE],
        "products.1.quantity": ["The products.1.quantity field must be at least 1."],
        "products.2.external_id": ["The products.2.external_id field is required."],
      },
    );
  });

  it("answers 422 for a body that is not an object", async () => {
    const creds = await createAccount();
    for (const body of [[], "order", 42]) {
      await expectErrors(creds, body, { body: ["The body field must be an object."] });
    }
    await expectErrors(creds, null, { body: ["The body field is required."] });
  });

  it("writes nothing for a 422", async () => {
    const creds = await createAccount();
    const p = orderPayload();
    const res = await post(creds, { ...p, products: [p.products[0], { ...p.products[0], price: -1 }] });
    expect(res.status).toBe(422);
    expect(await rows("SELECT id FROM orders WHERE account_id = ?", creds.accountId)).toEqual([]);
    expect(await rows("SELECT id FROM order_lines WHERE account_id = ?", creds.accountId)).toEqual([]);
    // The same order, fixed, is created afterwards: the failed attempt left no trace behind.
    const ok = await post(creds, p);
    expect(ok.json.message).toBe("Order created");
  });
});
