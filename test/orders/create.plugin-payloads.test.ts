// What the official webshop plugins really send, and how it reads back.
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";

async function createAndShow(creds: Credentials, body: unknown, headers: Record<string, string> = {}) {
  const created = await call("POST", "/api/v1/orders", { creds, body, headers });
  expect(created.status, created.text).toBe(200);
  expect(created.json.message).toBe("Order created");
  const shown = await call("GET", `/api/v1/orders/${created.json.reference}`, { creds });
  expect(shown.status).toBe(200);
  return shown.json;
}

const rand = () => Math.floor(Math.random() * 1e9);

/** The shape of the WooCommerce plugin's order: money as strings, integer ids, "" and null for absent. */
function wooCommerceOrder() {
  return {
    external_id: String(rand()),
    source: "WooCommerce",
    test: false,
    total: "435.45",
    shipping_cost: "6.95",
    shipping: { name: "Flat rate", description: "Flat rate", note: "", delivery_date: "" },
    email: "klant@example.nl",
    shipping_address: {
      first_name: "Piet",
      last_name: "Pieters",
      company_name: "",
      address1: "Kerkstraat 12",
      address2: "",
      postcode: "3511 AB",
      city: "Utrecht",
      state: "",
      country: "Netherlands",
      phone: "+31 30 123 4567",
    },
    products: [
      {
        external_id: 123,
        ean13: "8712345678906",
        name: "Tuinstoel",
        reference: "TS-01",
        quantity: 2,
        stock_quantity: null,
        price: "214.25",
        purchase_price: "",
        image_url: "https://shop.example.nl/wp-content/uploads/stoel.jpg",
        brand: "",
        category: "Tuin",
        supplier: null,
        custom: null,
      },
    ],
  };
}

describe("WooCommerce", () => {
  it("accepts strings for money, integer ids, empty optionals and an English country name", async () => {
    const creds = await createAccount();
    const sent = wooCommerceOrder();
    const order = await createAndShow(creds, sent, { expect: "100-continue" });
    expect(order).toEqual({
      id: expect.any(Number),
      external_id: sent.external_id,
      reference: expect.stringMatching(/^\d{16}$/),
      source: "WooCommerce",
      test: false,
      blocked: false,
      total: 435.45,
      shipping_address: {
        email: "klant@example.nl",
        first_name: "Piet",
        last_name: "Pieters",
        company_name: null,
        phone: "+31 30 123 4567",
        address1: "Kerkstraat 12",
        address2: null,
        city: "Utrecht",
        postcode: "3511 AB",
        state: null,
        country: "NL",
      },
      shipping: { cost: 6.95, name: "Flat rate", description: "Flat rate", note: null, delivery_date: null },
      custom: null,
      order_lines: [
        {
          id: expect.any(Number),
          external_id: "123",
          name: "Tuinstoel",
          ean13: "8712345678906",
          reference: "TS-01",
          quantity: 2,
          stock_quantity: null,
          price: 214.25,
          purchase_price: null,
          brand: null,
          category: "Tuin",
          image_url: "https://shop.example.nl/wp-content/uploads/stoel.jpg",
          custom: null,
          current_status: "pending",
          matched_supplier: null,
          confirmed_quantity: null,
          shipments: [],
          split_from_line_id: null,
          cancellation: null,
          height: null,
          width: null,
          length: null,
          weight: null,
          logs: [{ id: expect.any(Number), status: "pending", message: "Order line created", created_at: expect.any(String) }],
        },
      ],
      suppliers: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it("turns \"United States (US)\" into US", async () => {
    const creds = await createAccount();
    const sent = wooCommerceOrder();
    const order = await createAndShow(creds, { ...sent, shipping_address: { ...sent.shipping_address, country: "United States (US)", state: "CA" } });
    expect(order.shipping_address.country).toBe("US");
    expect(order.shipping_address.state).toBe("CA");
  });

  it("turns WooCommerce's own country names into the right code", async () => {
    const creds = await createAccount();
    const cases: [string, string][] = [
      ["United Kingdom (UK)", "GB"],
      ["Virgin Islands (US)", "VI"],
      ["Virgin Islands (British)", "VG"],
      ["United States (US) Minor Outlying Islands", "UM"],
      ["Congo (Kinshasa)", "CD"],
      ["Congo (Brazzaville)", "CG"],
      ["Saint Martin (Dutch part)", "SX"],
      ["Vatican", "VA"],
      ["Czech Republic", "CZ"],
      ["Ivory Coast", "CI"],
    ];
    for (const [country, code] of cases) {
      const sent = wooCommerceOrder();
      const order = await createAndShow(creds, { ...sent, shipping_address: { ...sent.shipping_address, country } });
      expect(order.shipping_address.country, country).toBe(code);
    }
  });

  it("treats a re-post of the same order on a status change as the same order", async () => {
    const creds = await createAccount();
    const sent = wooCommerceOrder();
    const first = await call("POST", "/api/v1/orders", { creds, body: sent });
    const again = await call("POST", "/api/v1/orders", { creds, body: { ...sent, total: "440.00" } });
    expect(again.json).toEqual({ message: "Order already exists", reference: first.json.reference });
  });
});

describe("Magento", () => {
  it("accepts a total with thousands separators", async () => {
    const creds = await createAccount();
    const order = await createAndShow(creds, {
      external_id: "000000123",
      source: "Magento 2",
      total: "1,234.50",
      shipping: { name: "flatrate_flatrate", description: "Flat Rate - Fixed", cost: "10.00" },
      email: "customer@example.com",
      shipping_address: {
        first_name: "Veronica",
        last_name: "Costello",
        address1: "6146 Honey Bluff Parkway",
        postcode: "49628-7978",
        city: "Calder",
        state: "Michigan",
        country: "US",
        phone: "(555) 229-3326",
      },
      products: [
        { external_id: "MJ01", name: "Jacket", reference: "MJ01-XS-Orange", quantity: "2.0000", price: "612.25", ean13: null },
      ],
    });
    expect(order.external_id).toBe("000000123");
    expect(order.total).toBe(1234.5);
    expect(order.shipping.cost).toBe(10);
    expect(order.shipping_address.country).toBe("US");
    expect(order.order_lines[0]).toMatchObject({ external_id: "MJ01", quantity: 2, price: 612.25, ean13: null });
  });
});

describe("PrestaShop", () => {
  it("accepts the shop language's country names and integer product ids", async () => {
    const creds = await createAccount();
    for (const [country, code] of [["Nederland", "NL"], ["Deutschland", "DE"], ["België", "BE"], ["Frankrijk", "FR"]]) {
      const order = await createAndShow(creds, {
        external_id: `PS-${rand()}`,
        source: "PrestaShop",
        total: 35.5,
        shipping_cost: 4.5,
        shipping: { name: "PostNL", description: "Levering binnen 2 dagen" },
        email: "klant@example.de",
        shipping_address: {
          first_name: "Anna",
          last_name: "Schmidt",
          company_name: "",
          address1: "Hauptstraße 5",
          address2: "",
          postcode: "10115",
          city: "Berlin",
          country,
          phone: "",
        },
        products: [{ external_id: 42, ean13: "", name: "Kaffeebecher", reference: "demo_42", quantity: 1, price: 31.0 }],
      });
      expect(order.shipping_address.country).toBe(code);
      expect(order.shipping_address.phone).toBeNull();
      expect(order.shipping.cost).toBe(4.5);
      expect(order.order_lines[0]).toMatchObject({ external_id: "42", ean13: null, price: 31 });
    }
  });
});

describe("Shopware", () => {
  it("accepts numbers where the spec types them as numbers, and a top-level custom object", async () => {
    const creds = await createAccount();
    const order = await createAndShow(creds, {
      external_id: "10042",
      source: "Shopware 6",
      total: 119.99,
      shipping: { name: "Standard", description: "Standard delivery", cost: 4.99, delivery_date: "05-12-2026" },
      email: "kunde@example.de",
      shipping_address: {
        first_name: "Max",
        last_name: "Mustermann",
        address1: "Ebbinghoff 10",
        postcode: "48624",
        city: "Schöppingen",
        country: "DE",
        phone: 4925559900,
      },
      products: [{ external_id: "SW10001", ean13: 4006381333931, name: "Hauptartikel", quantity: 1, price: 115, stock_quantity: 12 }],
      custom: { salesChannel: "Storefront", customerNumber: "SW-1", tags: ["vip"], nested: { a: { b: 1 } } },
    });
    expect(order.shipping_address.phone).toBe("4925559900");
    expect(order.order_lines[0].ean13).toBe("4006381333931");
    expect(order.custom).toEqual({ salesChannel: "Storefront", customerNumber: "SW-1", tags: ["vip"], nested: { a: { b: 1 } } });
    expect(order.shipping.delivery_date).toBe("2026-12-05");
  });
});

describe("field leniency", () => {
  const base = () => ({
    external_id: `L-${rand()}`,
    source: "Test",
    total: 10,
    shipping_address: { first_name: "A", last_name: "B", address1: "C 1", postcode: "1000AA", city: "D", country: "NL" },
    products: [{ external_id: "x", name: "y", quantity: 1, price: 10 }],
  });

  it("reads PHP's empty array (json_encode(array())) in custom and shipping as absent", async () => {
    const creds = await createAccount();
    const b = base();
    const order = await createAndShow(creds, { ...b, shipping: [], shipping_cost: "2.50", custom: [], products: [{ ...b.products[0], custom: [] }] });
    expect(order.custom).toBeNull();
    expect(order.shipping).toEqual({ cost: 2.5, name: null, description: null, note: null, delivery_date: null });
    expect(order.order_lines[0].custom).toBeNull();
    // A list with items is still not an object.
    const res = await call("POST", "/api/v1/orders", { creds, body: { ...base(), custom: ["a"], shipping: [1] } });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: "Errors",
      errors: { custom: ["The custom field must be an object."], shipping: ["The shipping field must be an object."] },
    });
  });

  it("keeps the leading zeros of an EAN sent as a string", async () => {
    const creds = await createAccount();
    const order = await createAndShow(creds, { ...base(), products: [{ ...base().products[0], ean13: "0012345678905" }] });
    expect(order.order_lines[0].ean13).toBe("0012345678905");
  });

  it("stores an EAN and a phone sent as numbers as strings", async () => {
    const creds = await createAccount();
    const b = base();
    const order = await createAndShow(creds, {
      ...b,
      shipping_address: { ...b.shipping_address, phone: 31612345678 },
      products: [{ ...b.products[0], ean13: 8712345678906 }],
    });
    expect(order.shipping_address.phone).toBe("31612345678");
    expect(order.order_lines[0].ean13).toBe("8712345678906");
  });

  it("reads absent, empty and null optionals back as null", async () => {
    const creds = await createAccount();
    const b = base();
    const empties = await createAndShow(creds, {
      ...b,
      email: "",
      shipping: { name: "", description: null, cost: "", note: "", delivery_date: null },
      shipping_address: { ...b.shipping_address, company_name: "", address2: null, state: " ", phone: "", email: null },
      products: [{ ...b.products[0], ean13: "", reference: null, stock_quantity: "", purchase_price: null, image_url: "", brand: "", category: null, supplier: "", custom: "" }],
      custom: null,
    });
    const absent = await createAndShow(creds, base());
    for (const order of [empties, absent]) {
      expect(order.shipping_address).toEqual({
        email: null, first_name: "A", last_name: "B", company_name: null, phone: null, address1: "C 1", address2: null,
        city: "D", postcode: "1000AA", state: null, country: "NL",
      });
      expect(order.shipping).toEqual({ cost: null, name: null, description: null, note: null, delivery_date: null });
      expect(order.custom).toBeNull();
      const { id, logs, ...line } = order.order_lines[0];
      expect(line).toEqual({
        external_id: "x", name: "y", ean13: null, reference: null, quantity: 1, stock_quantity: null, price: 10,
        purchase_price: null, brand: null, category: null, image_url: null, custom: null, current_status: "pending",
        matched_supplier: null,
        confirmed_quantity: null,
        shipments: [],
        split_from_line_id: null,
        cancellation: null,
        height: null,
        width: null,
        length: null,
        weight: null,
      });
    }
  });

  it("uses the top-level shipping_cost when shipping.cost is absent, and shipping.cost when both are sent", async () => {
    const creds = await createAccount();
    const onlyTop = await createAndShow(creds, { ...base(), shipping_cost: "5.95" });
    expect(onlyTop.shipping.cost).toBe(5.95);
    const noShippingObject = await createAndShow(creds, { ...base(), shipping: null, shipping_cost: 3 });
    expect(noShippingObject.shipping.cost).toBe(3);
    const both = await createAndShow(creds, { ...base(), shipping_cost: 5.95, shipping: { cost: 7.5 } });
    expect(both.shipping.cost).toBe(7.5);
  });

  it("takes the e-mail from the address when there is no top-level one", async () => {
    const creds = await createAccount();
    const b = base();
    const order = await createAndShow(creds, { ...b, shipping_address: { ...b.shipping_address, email: "adres@example.com" } });
    expect(order.shipping_address.email).toBe("adres@example.com");
    const both = await createAndShow(creds, { ...b, external_id: `L-${rand()}`, email: "top@example.com", shipping_address: { ...b.shipping_address, email: "adres@example.com" } });
    expect(both.shipping_address.email).toBe("top@example.com");
  });

  it("reads money back with the value that was sent", async () => {
    const creds = await createAccount();
    const b = base();
    const order = await createAndShow(creds, {
      ...b,
      total: "0.30",
      shipping_cost: 0.1,
      products: [{ ...b.products[0], price: "1234567.89", purchase_price: 0.2 }],
    });
    expect(order.total).toBe(0.3);
    expect(order.shipping.cost).toBe(0.1);
    expect(order.order_lines[0].price).toBe(1234567.89);
    expect(order.order_lines[0].purchase_price).toBe(0.2);
  });

  it("accepts ISO codes in any case and alpha-3 codes", async () => {
    const creds = await createAccount();
    for (const [country, code] of [["nl", "NL"], ["NLD", "NL"], ["deu", "DE"], ["United Kingdom", "GB"], [" Belgium ", "BE"]]) {
      const b = base();
      const order = await createAndShow(creds, { ...b, shipping_address: { ...b.shipping_address, country } });
      expect(order.shipping_address.country).toBe(code);
    }
  });

  it("accepts test as a boolean, 1/0 or a string", async () => {
    const creds = await createAccount();
    for (const [test, stored] of [[true, true], ["1", true], [1, true], ["false", false], [0, false], [null, false]] as const) {
      const order = await createAndShow(creds, { ...base(), test });
      expect(order.test).toBe(stored);
    }
  });
});
