// GET /api/v1/orders?q=: one search over the reference, external_id, customer's name, company, e-mail,
// postcode, city and product names: whole values normalised (spaces dropped, ASCII case ignored) and
// prefixes of the names, company, city, e-mail and product names; its limit, its 422, with the other
// filters, test orders and tenancy; and its search keys kept exact by the triggers.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { countsDiff } from "../helpers/counts";
import { createAccount, createOrder, exec } from "../helpers/factories";
import { BASE, call, type Credentials } from "../helpers/http";

const PATH = `${BASE}/api/v1/orders`;

/** The external ids an order list answers, in order (the count agreeing with them). */
async function listed(creds: Credentials, query: string) {
  const res = await call("GET", `/api/v1/orders?${query}`, { creds });
  expect(res.status, res.text).toBe(200);
  expect(res.json.meta.total).toBe(res.json.data.length);
  return res.json.data.map((o: { external_id: string }) => o.external_id) as string[];
}

const address = (first_name: string, last_name: string, postcode: string, company_name: string | null = null) => ({
  first_name,
  last_name,
  company_name,
  address1: "Damrak 1",
  postcode,
  city: "Amsterdam",
  country: "NL",
});

describe("GET /api/v1/orders?q=", () => {
  it("finds an order by its reference, external_id, customer's name, company, e-mail or postcode", async () => {
    const creds = await createAccount();
    const jan = await createOrder(creds, { external_id: "WC-1001", email: "Jan.Jansen@Example.com", shipping_address: address("Jan", "Jansen", "1012 LG", "Jansen BV") });
    await createOrder(creds, { external_id: "WC-1002", email: "piet@example.com", shipping_address: address("Piet", "de Vries", "3511AB") });
    await createOrder(creds, { external_id: "MAG-7", email: "anna@example.com", shipping_address: address("Anna", "Jansen", "9711 CA") });
    expect(await listed(creds, `q=${jan.reference}`)).toEqual(["WC-1001"]);
    expect(await listed(creds, "q=WC-1002")).toEqual(["WC-1002"]);
    expect(await listed(creds, "q=wc-1002")).toEqual(["WC-1002"]);
    expect(await listed(creds, "q=Jansen")).toEqual(["MAG-7", "WC-1001"]);
    expect(await listed(creds, "q=jan%20jansen")).toEqual(["WC-1001"]);
    expect(await listed(creds, "q=Piet%20de%20Vries")).toEqual(["WC-1002"]);
    expect(await listed(creds, "q=de%20vries")).toEqual(["WC-1002"]);
    expect(await listed(creds, "q=Jansen%20BV")).toEqual(["WC-1001"]);
    expect(await listed(creds, "q=jan.jansen%40example.com")).toEqual(["WC-1001"]);
    expect(await listed(creds, "q=%20ANNA%40EXAMPLE.COM%20")).toEqual(["MAG-7"]);
    expect(await listed(creds, "q=1012lg")).toEqual(["WC-1001"]);
    expect(await listed(creds, "q=3511%20ab")).toEqual(["WC-1002"]);
    // A reference pasted in groups of four.
    expect(await listed(creds, `q=${encodeURIComponent(jan.reference.replace(/(\d{4})(?=\d)/g, "$1 "))}`)).toEqual(["WC-1001"]);
  });

  it("answers the list's exact JSON for a search, links keeping q", async () => {
    const creds = await createAccount();
    await createOrder(creds, { external_id: "other", email: "someone@example.com" });
    const { reference } = await createOrder(creds, { external_id: "found", email: "found@example.com" });
    const all = await call("GET", "/api/v1/orders", { creds });
    const res = await call("GET", "/api/v1/orders?q=FOUND%40example.com", { creds });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      current_page: 1,
      data: [all.json.data.find((o: { reference: string }) => o.reference === reference)],
      links: { first: `${PATH}?q=FOUND%40example.com&page=1`, last: `${PATH}?q=FOUND%40example.com&page=1`, prev: null, next: null },
      meta: { current_page: 1, from: 1, last_page: 1, path: PATH, per_page: 50, to: 1, total: 1 },
    });
    expect(res.json.data[0]).toMatchObject({ reference, external_id: "found", shipping_address: { email: "found@example.com" } });
  });

  it("finds by prefix: the name and company and city from each word on, the e-mail and a product name; other fields whole", async () => {
    const creds = await createAccount();
    await createOrder(creds, {
      external_id: "WC-3001",
      email: "piet@voorbeeld.nl",
      shipping_address: { ...address("Piet", "de Vries", "9711 CA", "Tuinhout Groothandel"), city: "Groningen" },
      products: [{ external_id: "MUG-1", name: "Blue mug", quantity: 1, price: 12.5 }],
    });
    await createOrder(creds, {
      external_id: "WC-3002",
      email: "jan@example.com",
      shipping_address: address("Jan", "Jansen", "1012 LG"),
      products: [{ external_id: "VASE-1", name: "Glass vase", quantity: 1, price: 20 }],
    });
    // The searches, each found by the start of a value.
    for (const [q, found] of [
      ["Jans", ["WC-3002"]],
      ["piet@voorbeeld", ["WC-3001"]],
      ["Groningen", ["WC-3001"]],
      ["gron", ["WC-3001"]],
      ["Blue", ["WC-3001"]],
      ["blue mug", ["WC-3001"]],
      ["Pie", ["WC-3001"]],
      ["Piet de V", ["WC-3001"]],
      ["vries", ["WC-3001"]],
      ["groothandel", ["WC-3001"]],
      ["Amsterdam", ["WC-3002"]],
      ["jan", ["WC-3002"]],
    ] as const) {
      expect(await listed(creds, `q=${encodeURIComponent(q)}`), q).toEqual(found);
    }
    // Not a part from the middle, not a prefix under 3 characters, and reference, external_id and
    // postcode stay whole values.
    for (const q of ["ieter", "voorbeeld.nl", "mug", "ja", "WC-300", "WC", "9711", "example.com", "roningen"]) {
      expect(await listed(creds, `q=${encodeURIComponent(q)}`), q).toEqual([]);
    }
  });

  it("takes a prefix up to 24 characters; a longer text is found only as a whole value", async () => {
    const creds = await createAccount();
    const name = "Extra sterke koffiebekers van porselein";
    await createOrder(creds, { external_id: "long", products: [{ external_id: "CUP", name, quantity: 1, price: 1 }] });
    const normalised = name.replace(/ /g, "").toLowerCase();
    expect(await listed(creds, `q=${encodeURIComponent(normalised.slice(0, 24))}`)).toEqual(["long"]);
    expect(await listed(creds, `q=${encodeURIComponent(normalised.slice(0, 25))}`)).toEqual([]);
    expect(await listed(creds, `q=${encodeURIComponent(name)}`)).toEqual(["long"]);
  });

  it("matches letters beyond ASCII only in the case they were sent", async () => {
    const creds = await createAccount();
    await createOrder(creds, { external_id: "WC-2001", email: "jan@example.com", shipping_address: address("Jürgen", "Müller", "10115") });
    expect(await listed(creds, `q=${encodeURIComponent("müller")}`)).toEqual(["WC-2001"]);
    expect(await listed(creds, `q=${encodeURIComponent("Jürg")}`)).toEqual(["WC-2001"]);
    expect(await listed(creds, `q=${encodeURIComponent("jÜRGEN")}`)).toEqual([]);
    expect(await listed(creds, `q=${encodeURIComponent("JüRGEN MüLLER")}`)).toEqual(["WC-2001"]);
  });

  it("combines with the other filters, leaves test orders out unless asked, and never finds another account's orders", async () => {
    const creds = await createAccount();
    const other = await createAccount();
    await createOrder(creds, { external_id: "live-1", email: "kim@example.com", total: 10 });
    await createOrder(creds, { external_id: "test-1", email: "kim@example.com", test: true, total: 10 });
    await createOrder(creds, { external_id: "live-2", email: "kim@example.com", total: 99 });
    await createOrder(other, { external_id: "theirs", email: "kim@example.com" });
    expect(await listed(creds, "q=kim%40example.com")).toEqual(["live-2", "live-1"]);
    expect(await listed(creds, "q=kim%40example.com&include_test=true")).toEqual(["live-2", "test-1", "live-1"]);
    expect(await listed(creds, "q=kim%40example.com&total_max=50")).toEqual(["live-1"]);
    expect(await listed(creds, "q=kim%40example.com&total_max=50&include_test=true&external_id=test")).toEqual(["test-1"]);
    expect(await listed(creds, "q=kim%40example.com&date_from=2000-01-01&date_to=2000-01-02")).toEqual([]);
    expect(await listed(other, "q=kim%40example.com&include_test=true")).toEqual(["theirs"]);
    expect(await listed(creds, "q=theirs")).toEqual([]);
  });

  it("takes q of 255 characters and answers 422 for 256; nothing but spaces is no search", async () => {
    const creds = await createAccount();
    const longest = "x".repeat(255);
    await createOrder(creds, { external_id: longest });
    await createOrder(creds, { external_id: "short" });
    expect(await listed(creds, `q=${longest}`)).toEqual([longest]);
    expect(await listed(creds, `q=${"é".repeat(255)}`)).toEqual([]);
    for (const q of ["x".repeat(256), "é".repeat(256)]) {
      const res = await call("GET", `/api/v1/orders?q=${encodeURIComponent(q)}`, { creds });
      expect(res.status).toBe(422);
      expect(res.json).toEqual({ message: "Errors", errors: { q: ["The q field must not be greater than 255 characters."] } });
    }
    expect(await listed(creds, "q=%20%20")).toEqual(["short", longest]);
    expect(await listed(creds, "q=")).toEqual(["short", longest]);
  });

  it("keeps its keys exact through changes of an order's searched columns, its lines and its deletion", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds, {
      external_id: "moving",
      email: "old@example.com",
      // Two lines of one product: the key stays while one of them is left.
      products: [
        { external_id: "A", name: "Tuinstoel", quantity: 1, price: 1 },
        { external_id: "B", name: "Tuinstoel", quantity: 1, price: 1 },
      ],
    });
    await exec("UPDATE orders SET email = 'new@example.com', postcode = '2000 AB', city = 'Zwolle', test = 1 WHERE reference = ?", reference);
    expect(await listed(creds, "q=old%40example.com&include_test=true")).toEqual([]);
    expect(await listed(creds, "q=new%40example.com")).toEqual([]);
    expect(await listed(creds, "q=new%40example.com&include_test=true")).toEqual(["moving"]);
    expect(await listed(creds, "q=2000ab&include_test=true")).toEqual(["moving"]);
    expect(await listed(creds, "q=zwol&include_test=true")).toEqual(["moving"]);
    expect(await listed(creds, "q=tuinst&include_test=true")).toEqual(["moving"]);
    expect(await countsDiff(env.DB, [creds.accountId])).toEqual({ counters: [], facets: [], fts: [] });
    await exec("UPDATE order_lines SET name = 'Parasol' WHERE external_id = 'A' AND order_id = (SELECT id FROM orders WHERE reference = ?)", reference);
    expect(await listed(creds, "q=tuinst&include_test=true")).toEqual(["moving"]);
    expect(await listed(creds, "q=paras&include_test=true")).toEqual(["moving"]);
    await exec("UPDATE order_lines SET name = 'Parasol' WHERE external_id = 'B' AND order_id = (SELECT id FROM orders WHERE reference = ?)", reference);
    expect(await listed(creds, "q=tuinst&include_test=true")).toEqual([]);
    expect(await countsDiff(env.DB, [creds.accountId])).toEqual({ counters: [], facets: [], fts: [] });
  });
});
