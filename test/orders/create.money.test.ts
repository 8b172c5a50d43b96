// Money is exact: stored as INTEGER ten-thousandths, read back as the number that was sent, under
// one decimal-separator rule that never scales a value silently, with every shape the official
// plugins really send still accepted.
import { describe, expect, it } from "vitest";
import { createFeed, feedCatalogue, pushFile } from "../helpers/catalogue";
import { createAccount, orderPayload, rows } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";

const MAX = 99_999_999_999.9999;
const ambiguous = (field: string) =>
  `The ${field} field is ambiguous: digits grouped by three after a comma (or between dots) may be thousands or decimals. Send a plain decimal number such as 1234.50.`;

async function create(creds: Credentials, overrides: Record<string, unknown>) {
  return call("POST", "/api/v1/orders", { creds, body: orderPayload(overrides) });
}

async function createAndShow(creds: Credentials, overrides: Record<string, unknown>) {
  const res = await create(creds, overrides);
  expect(res.status, res.text).toBe(200);
  return (await call("GET", `/api/v1/orders/${res.json.reference}`, { creds })).json;
}

const stored = async (reference: string) =>
  (
    await rows<{ total: number; shipping_cost: number | null; price: number; purchase_price: number | null; t: string }>(
      `SELECT o.total, o.shipping_cost, l.price, l.purchase_price, typeof(o.total) AS t
       FROM orders o JOIN order_lines l ON l.order_id = o.id WHERE o.reference = ?`,
      reference,
    )
  )[0];

describe("the decimal separator rule", () => {
  // [what is sent, what it means]
  const READ: [string | number, number][] = [
    ["1234.50", 1234.5],
    ["1.234", 1.234], // a dot is always a decimal point
    ["1,234.50", 1234.5], // both separators, grouped by three
    ["1,234,567.89", 1234567.89],
    ["1.234,50", 1234.5],
    ["1.234.567,5", 1234567.5],
    ["435,45", 435.45], // a comma before other than three digits: a decimal comma
    ["1,2345", 1.2345],
    ["0,125", 0.125], // a leading 0 is never a thousands group
    ["12345,678", 12345.678],
    ["1 234,50", 1234.5], // spaces between digits are ignored
    ["\u00a01\u202f234.5\u00a0", 1234.5],
    [".5", 0.5],
    ["1234.5000", 1234.5], // Magento's DECIMAL(20,4) as text
    [59.9, 59.9],
  ];
  for (const [sent, meant] of READ) {
    it(`reads ${JSON.stringify(sent)} as ${meant}`, async () => {
      const creds = await createAccount();
      const order = await createAndShow(creds, { total: sent });
      expect(order.total).toBe(meant);
    });
  }

  it("refuses digit groups that could be thousands or decimals, on every money field, writing nothing", async () => {
    const creds = await createAccount();
    for (const sent of ["1,234", "1,234,567", "1.234.567", "-1,000"]) {
      const line = { ...orderPayload().products[0], price: sent, purchase_price: sent };
      const res = await create(creds, { total: sent, shipping_cost: sent, shipping: { cost: sent }, products: [line] });
      expect(res.status, sent).toBe(422);
      expect(res.json).toEqual({
        message: "Errors",
        errors: Object.fromEntries(["total", "shipping_cost", "shipping.cost", "products.0.price", "products.0.purchase_price"].map((f) => [f, [ambiguous(f)]])),
      });
    }
    expect(await rows("SELECT id FROM orders WHERE account_id = ?", creds.accountId)).toEqual([]);
  });

  it("refuses what is not a decimal at all as not a number", async () => {
    const creds = await createAccount();
    for (const sent of ["12,34.5", "1.2.3", "1e3", "€ 10", "10-"]) {
      const res = await create(creds, { total: sent });
      expect(res.json, sent).toEqual({ message: "Errors", errors: { total: ["The total field must be a number."] } });
    }
  });
});

describe("exact storage", () => {
  it("stores integer ten-thousandths and reads back the value sent", async () => {
    const creds = await createAccount();
    const res = await create(creds, { total: 59.9, shipping_cost: "4.95", products: [{ ...orderPayload().products[0], price: 0.1, purchase_price: "1234567.8901" }] });
    const reference = String(res.json.reference);
    expect(await stored(reference)).toEqual({ total: 599_000, shipping_cost: 49_500, price: 1_000, purchase_price: 12_345_678_901, t: "integer" });
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    expect([order.total, order.order_lines[0].price, order.order_lines[0].purchase_price]).toEqual([59.9, 0.1, 1234567.8901]);
  });

  it("rounds more than four decimals half away from zero (as Magento's DECIMAL(20,4) does)", async () => {
    const creds = await createAccount();
    const cases: [string | number, number][] = [
      [0.12345, 0.1235],
      [0.12344, 0.1234],
      ["2.00005", 2.0001],
      ["2.000049999", 2],
      [0.1 + 0.2, 0.3], // a float sum from PHP: 0.30000000000000004
      ["0.00004", 0],
    ];
    for (const [sent, meant] of cases) {
      const order = await createAndShow(creds, { total: sent });
      expect(order.total, String(sent)).toBe(meant);
    }
  });

  it(`accepts ${MAX} (the maximum, exact in JavaScript) and refuses one ten-thousandth more`, async () => {
    const creds = await createAccount();
    const order = await createAndShow(creds, { total: MAX, shipping: { cost: String(MAX) }, products: [{ ...orderPayload().products[0], price: "99999999999.9999" }] });
    expect([order.total, order.shipping.cost, order.order_lines[0].price]).toEqual([MAX, MAX, MAX]);
    expect((await stored(order.reference)).total).toBe(999_999_999_999_999);
    for (const past of ["100000000000", 100_000_000_000, 1e20, "99999999999.99995"]) {
      const res = await create(creds, { total: past });
      expect(res.json, String(past)).toEqual({ message: "Errors", errors: { total: ["The total field must not be greater than 99999999999.9999."] } });
    }
  });

  it("filters by total exactly, in the stored units", async () => {
    const creds = await createAccount();
    const ten = await createAndShow(creds, { total: 10 });
    const tenAndABit = await createAndShow(creds, { total: "10.0001" });
    const list = async (query: string) =>
      (await call("GET", `/api/v1/orders?${query}`, { creds })).json.data.map((o: { reference: string }) => o.reference).sort();
    expect(await list("total_min=10")).toEqual([ten.reference, tenAndABit.reference].sort());
    expect(await list("total_min=10.00001")).toEqual([tenAndABit.reference]);
    expect(await list("total_max=10.00009")).toEqual([ten.reference]);
    expect(await list("total_min=10.0001&total_max=10.0001")).toEqual([tenAndABit.reference]);
    expect((await call("GET", "/api/v1/orders?total_min=1,5", { creds })).json).toEqual({
      message: "Errors",
      errors: { total_min: ["The total_min field must be a number."] },
    });
  });
});

describe("what the official plugins send for money", () => {
  // Read from their sources (dropday-io/WooCommerce inc/Plugin.php, dropday-io/Magento Helper/Data.php
  // and rad-works/module-dropday, dropday-io/PrestaShop dropday.php, dropday-io/Shopware
  // OrderPayloadMapper.php; dropday-io/laravel passes the application's array through).
  const SHAPES: { plugin: string; sent: Record<string, unknown>; line: Record<string, unknown>; read: [number, number | null, number] }[] = [
    // WooCommerce: get_total() and get_shipping_total() are wc_format_decimal strings; price is (float).
    { plugin: "WooCommerce", sent: { total: "435.45", shipping_cost: "6.95" }, line: { price: 214.25 }, read: [435.45, 6.95, 214.25] },
    { plugin: "WooCommerce, free shipping, 3-decimal currency", sent: { total: "12.345", shipping_cost: "0" }, line: { price: 12.345 }, read: [12.345, 0, 12.345] },
    // Magento: getGrandTotal() is the DECIMAL(20,4) text; shipping_cost is number_format($x, 2), with
    // a comma for thousands from 1000 up; price is (float).
    { plugin: "Magento", sent: { total: "1234.5000", shipping_cost: "10.00" }, line: { price: 612.25 }, read: [1234.5, 10, 612.25] },
    { plugin: "Magento, shipping over 1000", sent: { total: "2534.5000", shipping_cost: "1,234.00" }, line: { price: 1300.5 }, read: [2534.5, 1234, 1300.5] },
    { plugin: "Magento, shipping over a million", sent: { total: "1234567.8900", shipping_cost: "1,234,567.89" }, line: { price: 0 }, read: [1234567.89, 1234567.89, 0] },
    // PrestaShop: (float) casts; PHP's json_encode writes 31.0 for a whole float.
    { plugin: "PrestaShop", sent: { total: 35.5, shipping_cost: 4.5 }, line: { price: 31.0, purchase_price: 12.1 }, read: [35.5, 4.5, 31] },
    // Shopware: round((float) $x, 2).
    { plugin: "Shopware", sent: { total: 119.99, shipping_cost: 4.99 }, line: { price: 115, purchase_price: 80.5 }, read: [119.99, 4.99, 115] },
    // Laravel: whatever the application holds, numbers or numeric strings.
    { plugin: "Laravel", sent: { total: "99.90", shipping_cost: null }, line: { price: "99.9" }, read: [99.9, null, 99.9] },
  ];
  for (const { plugin, sent, line, read } of SHAPES) {
    it(`${plugin}: ${JSON.stringify({ ...sent, ...line })}`, async () => {
      const creds = await createAccount();
      const order = await createAndShow(creds, { ...sent, shipping: undefined, products: [{ ...orderPayload().products[0], purchase_price: undefined, ...line }] });
      expect([order.total, order.shipping.cost, order.order_lines[0].price]).toEqual(read);
    });
  }
});

describe("feeds follow the same rule", () => {
  it("imports plain, grouped and decimal-comma prices, and rejects an ambiguous one with the reason", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    const csv = 'SKU,Name,Purchase_Price\nA,Alpha,"1.234,50"\nB,Beta,"1,234.50"\nC,Gamma,"12,5"\nD,Delta,"1,234"\nE,Epsilon,0.12345\n';
    const res = await pushFile(creds, feed.id, csv, "text/csv");
    expect(res.status, res.text).toBe(200);
    expect(res.json.rejections).toEqual([
      { line: 5, sku: "D", reason: "The column 'Purchase_Price' (purchase_price) \"1,234\" is ambiguous (thousands or decimals?): the file should hold a plain decimal number such as 1234.50." },
    ]);
    const catalogue = await feedCatalogue(creds, feed.id);
    expect(Object.fromEntries(Object.entries(catalogue).map(([sku, p]) => [sku, p.purchase_price]))).toEqual({ A: 1234.5, B: 1234.5, C: 12.5, E: 0.1235 });
  });
});
