// GET /api/v1/orders/export: the filtered list as CSV, every matching order however many, streamed
// in keyset chunks of 100 growing to 1,000 (orders of one instant across a chunk's edge neither lost nor repeated).
import { describe, expect, it } from "vitest";
import { createAccount, createOrder, seedSupplier } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { seedOrders, type Seeded } from "../helpers/orders-bulk";

const HEADER = "reference,external_id,created_at,source,test,blocked,total,currency,email,first_name,last_name,company_name,postcode,city,country,lines,line_statuses,suppliers,state,tracking_numbers\r\n";

/** The seeded orders' states in words: their lines have no send and no shipment (test/helpers/orders-bulk.ts). */
const stateOf = (statuses: string[]) => (statuses.length === 0 ? "No lines" : statuses.includes("completed") ? `Sent 1 of ${statuses.length} lines` : "Not sent yet");

/** What the export must say of these orders: newest first, ties by the later id (the later insert) first. */
function csvOf(rows: Seeded[], supplier: string) {
  const cell = (s: string) => (s.startsWith("=") ? `'${s}` : s).replace(/^(.*[",].*)$/, (m) => `"${m.replace(/"/g, '""')}"`);
  const ordered = rows.map((r, i) => ({ ...r, i })).sort((a, b) => (a.created_at === b.created_at ? b.i - a.i : a.created_at < b.created_at ? 1 : -1));
  return (
    HEADER +
    ordered
      .map((r) =>
        [
          r.reference, r.external_id, r.created_at, "Shop", r.test ? "true" : "false", r.blocked ? "true" : "false", String(r.total / 10_000), "EUR",
          "kim@example.com", "Kim", "de Boer", r.company === null ? "" : cell(r.company), "1012 LG", "Amsterdam", "NL", String(r.statuses.length),
          r.statuses.join("; "), r.supplier && r.statuses.length > 0 ? supplier : "", stateOf(r.statuses), "",
        ].join(",") + "\r\n",
      )
      .join("")
  );
}

async function exported(creds: Credentials, query = "") {
  const res = await call("GET", `/api/v1/orders/export${query ? `?${query}` : ""}`, { creds });
  expect(res.status, res.text).toBe(200);
  expect(res.headers.get("content-type")).toBe("text/csv; charset=utf-8");
  expect(res.headers.get("content-disposition")).toBe('attachment; filename="orders.csv"');
  return res.text;
}

describe("GET /api/v1/orders/export", () => {
  it("sends every order the filters match as CSV, across chunks, ties at a chunk's edge once each", async () => {
    const creds = await createAccount();
    const supplier = await seedSupplier(creds.accountId, "Keukenhuis");
    const rows = await seedOrders(creds.accountId, supplier.id, 250);
    const other = await createAccount();
    await seedOrders(other.accountId, (await seedSupplier(other.accountId)).id, 3);

    const all = await exported(creds, "include_test=true");
    expect(all.split("\r\n")).toHaveLength(252);
    expect(all).toBe(csvOf(rows, "Keukenhuis"));
    // One row spelled out: the quoted company, the neutralised formula, the lines' statuses and supplier.
    expect(all).toContain(`\r\n${rows[5].reference},EX-005,2026-03-01T10:05:00.000000Z,Shop,false,false,5.1234,EUR,kim@example.com,Kim,de Boer,"Jansen, ""BV""",1012 LG,Amsterdam,NL,2,completed; failed,,Sent 1 of 2 lines,\r\n`);
    expect(all).toContain(`\r\n${rows[6].reference},EX-006,2026-03-01T10:06:00.000000Z,Shop,false,false,6.1234,EUR,kim@example.com,Kim,de Boer,'=SUM(A1),1012 LG,Amsterdam,NL,1,ruled,Keukenhuis,Not sent yet,\r\n`);

    // The list's filters, alone and combined (test orders left out unless asked, as the list does).
    expect(await exported(creds)).toBe(csvOf(rows.filter((r) => !r.test), "Keukenhuis"));
    expect(await exported(creds, "blocked=false&total_min=20&statuses=ruled")).toBe(
      csvOf(rows.filter((r) => !r.test && !r.blocked && r.total >= 200_000 && r.statuses.includes("ruled")), "Keukenhuis"),
    );
    expect(await exported(creds, "q=EX-021")).toBe(csvOf(rows.filter((r) => r.external_id === "EX-021"), "Keukenhuis"));
    expect(await exported(creds, "q=KIM%40example.com&date_to=2026-03-01T10:25:00Z")).toBe(
      csvOf(rows.filter((r) => !r.test && r.created_at <= "2026-03-01T10:25:00.000000Z"), "Keukenhuis"),
    );
    expect(await exported(creds, `supplier_ids=${supplier.id}&include_test=true`)).toBe(csvOf(rows.filter((r) => r.supplier && r.statuses.length > 0), "Keukenhuis"));
    expect(await exported(creds, "q=nobody")).toBe(HEADER);
    expect(await exported(other, "q=EX-021")).toBe(HEADER);
  });

  it("gets past more orders of one instant than its largest chunk holds", async () => {
    const creds = await createAccount();
    const rows = await seedOrders(creds.accountId, (await seedSupplier(creds.accountId, "Keukenhuis")).id, 1_100, () => 0);
    expect(await exported(creds, "include_test=true")).toBe(csvOf(rows, "Keukenhuis"));
  });

  it("answers a bad filter with the list's 422, before anything is sent", async () => {
    const creds = await createAccount();
    const res = await call("GET", `/api/v1/orders/export?q=${"x".repeat(256)}&blocked=maybe`, { creds });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({
      message: "Errors",
      errors: { q: ["The q field must not be greater than 255 characters."], blocked: ["The blocked field must be true or false."] },
    });
    expect((await call("GET", `/api/v1/orders/export?q=${"x".repeat(255)}`, { creds })).text).toBe(HEADER);
  });

  it("neutralises a formula that starts with - and a digit (issue 30): only a whole number is left as it is", async () => {
    const creds = await createAccount();
    const payload = (company: string, external_id: string) => ({
      external_id,
      total: 12.5,
      shipping_address: { first_name: "-12", last_name: "-12.50", company_name: company, address1: "Damrak 1", postcode: "1012LG", city: "Amsterdam", country: "NL" },
    });
    const { reference } = await createOrder(creds, payload("-2+3+cmd|' /C calc'!A0", "-1+1"));
    const [, row] = (await exported(creds)).split("\r\n");
    // external_id, first name and last name: "-1+1" is no number, "-12" and "-12.50" are.
    expect(row).toMatch(new RegExp(`^${reference},'-1\\+1,[^,]+,Test shop,false,false,12.5,EUR,jan@example.com,-12,-12.50,'-2\\+3\\+cmd\\|' /C calc'!A0,1012LG,Amsterdam,NL,`));
  });

  it("names each total's currency: the order's own, else the account's", async () => {
    const creds = await createAccount();
    expect((await call("PATCH", "/api/v1/settings", { creds, body: { currency: "USD" } })).status).toBe(200);
    const own = await createOrder(creds, { currency: "GBP", total: 12.5 });
    const plain = await createOrder(creds, { total: 7 });
    const rows = (await exported(creds)).split("\r\n").slice(1, -1).map((line) => line.split(","));
    // reference, …, total, currency: newest first.
    expect(rows.map((r) => [r[0], r[6], r[7]])).toEqual([
      [String(plain.reference), "7", "USD"],
      [String(own.reference), "12.5", "GBP"],
    ]);
  });
});
