// Orders posted as forms: the Magento module's real request, and every form giving exactly the
// order its JSON twin gives.
import { describe, expect, it } from "vitest";
import { FORM_LIMITS } from "../../src/lib/form-body";
import { createAccount, unique } from "../helpers/factories";
import { authHeaders, call, type Credentials } from "../helpers/http";
import { expectDocumentedError } from "../helpers/invariants";
import { httpBuildQuery, multipartOf } from "../helpers/php-form";

const URLENCODED = "application/x-www-form-urlencoded";

/** What Magento's ZendClient sends next to the body (dropday-io/Magento Helper/Data.php getClient()). */
const zendHeaders = (creds: Credentials) => ({
  "content-type": URLENCODED,
  accept: "application/json",
  "user-agent": "Zend_Http_Client",
  ...authHeaders(creds),
});

/** getOrderRequestData() of the Magento module: Magento's own strings for money, ids and the config's "0". */
function magentoOrder(externalId: string) {
  return {
    external_id: externalId,
    source: "Keukenhuis Online",
    test: "0",
    total: "1222.0000",
    shipping_cost: "7.0500",
    email: "eva@example.nl",
    shipping_address: {
      first_name: "Eva",
      last_name: "de Vries",
      company_name: null,
      address1: "Keizersgracht 1",
      address2: "",
      postcode: "1015 CJ",
      state: null,
      city: "Amsterdam",
      country: "NL",
      phone: "+31 20 123 4567",
    },
    products: [
      {
        external_id: "42",
        name: "Keukenkast & lade",
        reference: "KK-42/60",
        quantity: 2,
        price: 607.475,
        image_url: "https://keukenhuis.example/media/catalog/product/k/k/kk42.jpg",
        category: "Keukens",
      },
      { external_id: "7", name: "Greep (mat zwart)", reference: "GR-7", quantity: 1, price: 0.05, image_url: "", category: null },
    ],
  };
}

describe("the Magento module's request", () => {
  it("creates the order from its urlencoded body, and answers its second post with the same order", async () => {
    const creds = await createAccount();
    const body = httpBuildQuery(magentoOrder("053750381"));
    expect(body).toContain("external_id=053750381&source=Keukenhuis+Online&test=0&total=1222.0000&shipping_cost=7.0500");
    expect(body).toContain("&shipping_address%5Bfirst_name%5D=Eva&");
    expect(body).toContain("&products%5B0%5D%5Bexternal_id%5D=42&products%5B0%5D%5Bname%5D=Keukenkast+%26+lade&");

    const first = await call("POST", "/api/v1/orders", { rawBody: body, headers: zendHeaders(creds) });
    expect(first.status, first.text).toBe(200);
    expect(first.json).toEqual({ message: "Order created", reference: expect.any(Number) });
    const second = await call("POST", "/api/v1/orders", { rawBody: body, headers: zendHeaders(creds) });
    expect(second.json).toEqual({ message: "Order already exists", reference: first.json.reference });

    const list = await call("GET", "/api/v1/orders", { creds });
    expect(list.json.meta.total).toBe(1);
    const shown = await call("GET", `/api/v1/orders/${first.json.reference}`, { creds });
    const line = { current_status: "pending", matched_supplier: null, confirmed_quantity: null, shipments: [], split_from_line_id: null, cancellation: null, custom: null, ean13: null, stock_quantity: null, purchase_price: null, brand: null, height: null, width: null, length: null, weight: null };
    const log = [{ id: expect.any(Number), status: "pending", message: "Order line created", created_at: expect.any(String) }];
    expect(shown.json).toEqual({
      id: expect.any(Number),
      external_id: "053750381",
      reference: String(first.json.reference),
      source: "Keukenhuis Online",
      test: false,
      blocked: false,
      total: 1222,
      shipping_address: {
        email: "eva@example.nl",
        first_name: "Eva",
        last_name: "de Vries",
        company_name: null,
        phone: "+31 20 123 4567",
        address1: "Keizersgracht 1",
        address2: null,
        city: "Amsterdam",
        postcode: "1015 CJ",
        state: null,
        country: "NL",
      },
      shipping: { cost: 7.05, name: null, description: null, note: null, delivery_date: null },
      custom: null,
      order_lines: [
        { ...line, id: expect.any(Number), external_id: "42", name: "Keukenkast & lade", reference: "KK-42/60", quantity: 2, price: 607.475, category: "Keukens", image_url: "https://keukenhuis.example/media/catalog/product/k/k/kk42.jpg", logs: log },
        { ...line, id: expect.any(Number), external_id: "7", name: "Greep (mat zwart)", reference: "GR-7", quantity: 1, price: 0.05, category: null, image_url: null, logs: log },
      ],
      suppliers: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });
});

/** A rich order as a JSON client sends it; the same PHP array through http_build_query is its form twin. */
function richOrder(externalId: string) {
  return {
    external_id: externalId,
    source: "Twin shop",
    test: true,
    total: 1234.5,
    shipping_cost: 4.95,
    shipping: { name: "PostNL", description: "Standaard", cost: 6.95, note: "Bel twee keer", delivery_date: "30-11-2026" },
    email: "twin@example.com",
    shipping_address: {
      first_name: "Zoë",
      last_name: "O'Brien-Müller",
      company_name: "Tweeling & Co",
      address1: "Damrak 1+2",
      address2: "3hoog = boven",
      postcode: "1012 LG",
      city: "Amsterdam",
      state: "Noord-Holland",
      country: "Nederland",
      phone: "+31 6 1234 5678",
      email: "adres@example.com",
    },
    products: [
      {
        external_id: "sku-1",
        ean13: "0012345678905",
        name: "Mok 100% katoen? Nee: aardewerk",
        reference: "MUG[blue]",
        quantity: 3,
        stock_quantity: -2,
        price: 12.5,
        purchase_price: 6.25,
        image_url: "https://img.example.com/mug.png?size=large&v=2",
        brand: "Mugs Inc",
        category: "Keuken",
        supplier: "MugSupplier",
        custom: { color: "blue", size: { w: "10", unit: "cm" }, "key with spaces": "ja" },
      },
      { external_id: "sku-2", name: "Schotel", quantity: 1, price: "0.10" },
    ],
    custom: { channel: "web", tags: ["vip", "b2b"] },
  };
}

/** The parts of a read that belong to the instance, not to what was sent: ids, reference and times. */
function instanceFree(order: any) {
  return {
    ...order,
    id: 0,
    reference: "",
    created_at: "",
    updated_at: "",
    order_lines: order.order_lines.map((l: any) => ({
      ...l,
      id: 0,
      ...(l.logs ? { logs: l.logs.map((g: any) => ({ ...g, id: 0, created_at: "" })) } : {}),
    })),
  };
}

async function readsOf(creds: Credentials, externalId: string, send: { rawBody?: BodyInit; body?: unknown; headers?: Record<string, string> }) {
  const created = await call("POST", "/api/v1/orders", { creds, ...send });
  expect(created.status, created.text).toBe(200);
  expect(created.json.message).toBe("Order created");
  const one = await call("GET", `/api/v1/orders/${created.json.reference}`, { creds });
  const list = await call("GET", `/api/v1/orders?include_test=true&external_id=${externalId}`, { creds });
  expect(list.json.data).toHaveLength(1);
  return JSON.stringify([instanceFree(one.json), { ...list.json, data: list.json.data.map(instanceFree) }]);
}

describe("a form gives exactly the order its JSON twin gives", () => {
  it("urlencoded and multipart read back byte for byte like JSON", async () => {
    const externalId = unique("twin");
    const order = richOrder(externalId);
    const json = await readsOf(await createAccount(), externalId, { body: order });
    const urlencoded = await readsOf(await createAccount(), externalId, { rawBody: httpBuildQuery(order), headers: { "content-type": URLENCODED } });
    const multipart = await readsOf(await createAccount(), externalId, { rawBody: multipartOf(order) });
    expect(urlencoded).toBe(json);
    expect(multipart).toBe(json);
    // The comparison sees what was sent: a decoded value that differed would show.
    expect(json).toContain('"last_name":"O\'Brien-Müller"');
    expect(json).toContain('"custom":{"color":"blue","size":{"w":"10","unit":"cm"},"key with spaces":"ja"}');
    expect(json).toContain('"custom":{"channel":"web","tags":["vip","b2b"]}');
    expect(json).toContain('"test":true');
  });

  it("reads test=0/1/true/false and numbers as strings as JSON means them", async () => {
    const creds = await createAccount();
    for (const [test, stored] of [["1", true], ["0", false], ["true", true], ["false", false], ["", false]] as const) {
      const order = { ...richOrder(unique("bool")), test, total: "99.95" };
      const res = await call("POST", "/api/v1/orders", { creds, rawBody: httpBuildQuery(order), headers: { "content-type": URLENCODED } });
      const shown = await call("GET", `/api/v1/orders/${res.json.reference}`, { creds });
      expect([shown.json.test, shown.json.total, shown.json.order_lines[0].quantity], test).toEqual([stored, 99.95, 3]);
    }
  });

  it("answers a form's validation errors with the same 422 as JSON's", async () => {
    const creds = await createAccount();
    const bad = { ...richOrder(unique("bad")), total: "veel", products: [{ external_id: "", name: "x", quantity: "0", price: "1" }] };
    const json = await call("POST", "/api/v1/orders", { creds, body: bad });
    const form = await call("POST", "/api/v1/orders", { creds, rawBody: httpBuildQuery(bad), headers: { "content-type": URLENCODED } });
    expect(json.status).toBe(422);
    expect(form.status).toBe(422);
    expect(form.json).toEqual(json.json);
    expect(form.json.errors).toEqual({
      total: ["The total field must be a number."],
      "products.0.external_id": ["The products.0.external_id field is required."],
      "products.0.quantity": ["The products.0.quantity field must be at least 1."],
    });
  });
});

describe("malformed forms", () => {
  const send = (creds: Credentials, rawBody: BodyInit, type = URLENCODED) =>
    call("POST", "/api/v1/orders", { creds, rawBody, headers: type ? { "content-type": type } : {} });

  it("answers malformed and conflicting keys with a 400 naming the key, and writes nothing", async () => {
    const creds = await createAccount();
    const valid = httpBuildQuery(richOrder(unique("m")));
    const cases: [string, string][] = [
      [`${valid}&products[0`, 'The form key "products[0" has an unclosed bracket.'],
      [`${valid}&total[x]=1`, 'The form key "total[x]" uses "total" as a group, which another key gives a value.'],
      [`${valid}&products[]=1`, 'The form key "products[]" mixes [] with named or numbered members of "products".'],
      [`${valid}&source=Other`, 'The form key "source" is sent more than once.'],
      [`${valid}&custom[a][b][c][d][e][f][g][h]=1`, 'The form key "custom[a][b][c][d][e][f][g][h]" is nested deeper than 8 levels.'],
      [`${valid}&%FF=1`, "The form body is not valid UTF-8 once its %-escapes are decoded."],
    ];
    for (const [body, error] of cases) {
      const res = await send(creds, body);
      expectDocumentedError(res, body.slice(-40));
      expect(res.json, body.slice(-40)).toEqual({ message: "Bad Request", error });
    }
    const res = await send(creds, "--x\r\nnot a part", "multipart/form-data; boundary=x");
    expect(res.json).toEqual({ message: "Bad Request", error: "Malformed multipart/form-data body" });
    expect((await call("GET", "/api/v1/orders?include_test=true", { creds })).json.meta.total).toBe(0);
  });

  it("answers gaps and huge indexes in the product list as a list that is not one (422)", async () => {
    const creds = await createAccount();
    const order = richOrder(unique("gap"));
    const line = httpBuildQuery({ x: order.products[1] }).replace(/x%5B/g, "%5B");
    const base = httpBuildQuery({ ...order, products: undefined });
    for (const products of [`products[0]${line.replace(/&%5B/g, "&products[0][")}&products[2]${line.replace(/&%5B/g, "&products[2][")}`, `products[99999999]${line.replace(/&%5B/g, "&products[99999999][")}`]) {
      const res = await send(creds, `${base}&${products}`);
      expect(res.status, products.slice(0, 40)).toBe(422);
      expect(res.json).toEqual({ message: "Errors", errors: { products: ["The products field must be an array."] } });
    }
  });

  it("reads a form with no field (a lone &, a multipart body of only its closing delimiter) as an order without its fields", async () => {
    const creds = await createAccount();
    const missing = {
      message: "Errors",
      errors: {
        external_id: ["The external_id field is required."],
        source: ["The source field is required."],
        total: ["The total field is required."],
        shipping_address: ["The shipping_address field is required."],
        products: ["The products field is required."],
      },
    };
    for (const [body, type] of [
      ["&", URLENCODED],
      ["--x--\r\n", "multipart/form-data; boundary=x"],
    ]) {
      const res = await send(creds, body, type);
      expect([res.status, res.json], type).toEqual([422, missing]);
    }
  });

  it("answers a file in an order with a 422 on its field", async () => {
    const creds = await createAccount();
    const form = multipartOf(richOrder(unique("file")));
    form.append("products[1][image_url]", new File([new Uint8Array([0x89, 0x50])], "mug.png", { type: "image/png" }));
    const res = await send(creds, form, "");
    expect(res.json).toEqual({ message: "Errors", errors: { "products.1.image_url": ["The products.1.image_url field must be text, not a file."] } });
    expect((await call("GET", "/api/v1/orders?include_test=true", { creds })).json.meta.total).toBe(0);
  });
});

describe("form bounds", () => {
  /** A 500-line order of exactly `fields` fields: every line carries custom keys up to the count. */
  function orderOfFields(fields: number, externalId: string) {
    const head = `external_id=${externalId}&source=Bound&total=1&shipping_address[first_name]=A&shipping_address[last_name]=B&shipping_address[address1]=C&shipping_address[postcode]=1&shipping_address[city]=D&shipping_address[country]=NL`;
    const parts = [head];
    let count = head.split("&").length;
    for (let i = 0; i < 500; i++) {
      parts.push(`products[${i}][external_id]=s${i}&products[${i}][name]=n&products[${i}][quantity]=1&products[${i}][price]=1`);
      count += 4;
    }
    for (let k = 0; count < fields; k++) {
      for (let i = 0; i < 500 && count < fields; i++, count++) parts.push(`products[${i}][custom][k${k}]=v`);
    }
    return parts.join("&");
  }

  it("takes a 500-line order of 20,000 fields, and refuses one more field", async () => {
    const creds = await createAccount();
    const atMax = orderOfFields(FORM_LIMITS.maxFields, unique("max"));
    expect(atMax.split("&")).toHaveLength(20_000);
    const ok = await call("POST", "/api/v1/orders", { creds, rawBody: atMax, headers: { "content-type": URLENCODED } });
    expect(ok.status, ok.text.slice(0, 300)).toBe(200);
    const shown = await call("GET", `/api/v1/orders/${ok.json.reference}`, { creds });
    expect(shown.json.order_lines).toHaveLength(500);
    expect(Object.keys(shown.json.order_lines[0].custom)).toHaveLength(36);

    const past = await call("POST", "/api/v1/orders", { creds, rawBody: `${orderOfFields(FORM_LIMITS.maxFields, unique("past"))}&extra=1`, headers: { "content-type": URLENCODED } });
    expect(past.json).toEqual({ message: "Bad Request", error: "The form body has more than 20000 fields." });
  });

  it("takes the deepest and longest keys an order can use, and refuses one past each", async () => {
    const creds = await createAccount();
    const base = httpBuildQuery({ ...richOrder(unique("deep")), custom: undefined });
    const deepest = await call("POST", "/api/v1/orders", { creds, rawBody: `${base}&products[1][custom][a][b][c][d][e]=1`, headers: { "content-type": URLENCODED } });
    expect(deepest.status, deepest.text).toBe(200);
    const shown = await call("GET", `/api/v1/orders/${deepest.json.reference}`, { creds });
    expect(shown.json.order_lines[1].custom).toEqual({ a: { b: { c: { d: { e: "1" } } } } });

    const longKey = `custom[${"k".repeat(FORM_LIMITS.maxKeyLength - 8)}]`;
    expect(longKey).toHaveLength(FORM_LIMITS.maxKeyLength);
    const longest = await call("POST", "/api/v1/orders", { creds, rawBody: `${httpBuildQuery({ ...richOrder(unique("long")), custom: undefined })}&${longKey}=1`, headers: { "content-type": URLENCODED } });
    expect(longest.status, longest.text).toBe(200);
    const tooLong = `custom[${"k".repeat(FORM_LIMITS.maxKeyLength - 7)}]`;
    const refused = await call("POST", "/api/v1/orders", { creds, rawBody: `${base}&${tooLong}=1`, headers: { "content-type": URLENCODED } });
    expect(refused.json).toEqual({ message: "Bad Request", error: `The form key "${tooLong.slice(0, 80)}…" is longer than 512 characters.` });
  });
});
