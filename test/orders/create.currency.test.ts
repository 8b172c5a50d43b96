// The amounts' currency: an order's optional ISO 4217 `currency`, and the account's own (GET/PATCH /api/v1/settings).
import { describe, expect, it } from "vitest";
import { createAccount, createOrder, orderPayload } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";

const MESSAGE = "The selected currency is invalid. Send an ISO 4217 currency code, such as EUR or USD.";
// The contract's fields of an order, in its order: an order sent without a currency shows exactly these.
const CONTRACT_KEYS = ["id", "external_id", "reference", "source", "test", "blocked", "total", "shipping_address", "shipping", "custom", "order_lines", "suppliers", "created_at", "updated_at"];

const show = (creds: Credentials, reference: string) => call("GET", `/api/v1/orders/${reference}`, { creds });

describe.concurrent("an order's currency", () => {
  it("is read back in capitals, after the total, in the order and in the list", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds, { currency: "usd" });
    const res = await show(creds, reference);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json)).toEqual([...CONTRACT_KEYS.slice(0, 7), "currency", ...CONTRACT_KEYS.slice(7)]);
    expect(res.text).toContain(`"total":59.9,"currency":"USD","shipping_address":`);
    const list = await call("GET", "/api/v1/orders", { creds });
    expect(list.json.data[0]).toEqual(expect.objectContaining({ reference, total: 59.9, currency: "USD" }));
  });

  it("is left out of an order sent without one, which reads back as before ('' and null are absent)", async () => {
    const creds = await createAccount();
    for (const sent of [{}, { currency: "" }, { currency: null }]) {
      const { reference } = await createOrder(creds, sent);
      const res = await show(creds, reference);
      expect(Object.keys(res.json)).toEqual(CONTRACT_KEYS);
      expect(res.text).not.toContain("currency");
      const list = await call("GET", `/api/v1/orders?external_id=${encodeURIComponent(res.json.external_id)}`, { creds });
      expect(Object.keys(list.json.data[0])).toEqual(CONTRACT_KEYS);
    }
  });

  it("must be a current ISO 4217 code: anything else is a 422 naming the field, and no order is made", async () => {
    const creds = await createAccount();
    // Not a code; withdrawn (kuna, 2023); gold, the test code and "no currency" are no shop's money; not a string.
    for (const currency of ["EURO", "ABC", "HRK", "XAU", "XTS", "XXX", "E", 978, true]) {
      const payload = orderPayload({ currency });
      const res = await call("POST", "/api/v1/orders", { creds, body: payload });
      expect(res.status, String(currency)).toBe(422);
      expect(res.json).toEqual({ message: "Errors", errors: { currency: [typeof currency === "string" ? MESSAGE : "The currency field must be a string."] } });
    }
    const list = await call("GET", "/api/v1/orders", { creds });
    expect(list.json.meta.total).toBe(0);
  });

  it("ignores blanks around a code, not inside it; a blank code is absent; 100 characters are judged as a code, 101 are too long", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds, { currency: " usd\t" });
    expect((await show(creds, reference)).json.currency).toBe("USD");
    const blank = await createOrder(creds, { currency: "   " });
    expect(Object.keys((await show(creds, blank.reference)).json)).toEqual(CONTRACT_KEYS);
    const refused: [unknown, string][] = [
      ["U SD", MESSAGE],
      ["US\u0000D", MESSAGE],
      ["usd.", MESSAGE],
      ["€", MESSAGE],
      ["A".repeat(100), MESSAGE],
      ["A".repeat(101), "The currency field must not be greater than 100 characters."],
    ];
    for (const [currency, message] of refused) {
      const res = await call("POST", "/api/v1/orders", { creds, body: orderPayload({ currency }) });
      expect(res.status, String(currency)).toBe(422);
      expect(res.json).toEqual({ message: "Errors", errors: { currency: [message] } });
    }
    expect((await call("GET", "/api/v1/orders", { creds })).json.meta.total).toBe(2);
  });
});

describe.concurrent("the account's currency (GET/PATCH /api/v1/settings)", () => {
  it("is EUR until set; set in any case, kept in capitals; a bad code is a 422 and changes nothing", async () => {
    const creds = await createAccount();
    expect((await call("GET", "/api/v1/settings", { creds })).json).toEqual({ reroute_enabled: true, reroute_max_attempts: 3, currency: "EUR", archive_after_days: 90 });
    const set = await call("PATCH", "/api/v1/settings", { creds, body: { currency: "gbp" } });
    expect(set).toMatchObject({ status: 200, json: { reroute_enabled: true, reroute_max_attempts: 3, currency: "GBP", archive_after_days: 90 } });
    const bad = await call("PATCH", "/api/v1/settings", { creds, body: { currency: "XYZ", reroute_max_attempts: 2 } });
    expect(bad).toMatchObject({ status: 422, json: { message: "Errors", errors: { currency: [MESSAGE] } } });
    expect((await call("GET", "/api/v1/settings", { creds })).json).toEqual({ reroute_enabled: true, reroute_max_attempts: 3, currency: "GBP", archive_after_days: 90 });
    // It relabels, never converts: an order without a currency still reads back without one.
    const { reference } = await createOrder(creds);
    expect(Object.keys((await show(creds, reference)).json)).toEqual(CONTRACT_KEYS);
  });
});
