// Every bounded input of the order flow at its maximum, end to end through the real queue and D1:
// 500 lines created, matched, dispatched, answered and completed; 500 line ids; 100 supplier ids;
// a 255-character product search. One past each limit is a 422 that writes nothing.
import { describe, expect, it } from "vitest";
import { createFeed, pushJson } from "../helpers/catalogue";
import { accountState, createAccount, orderPayload, rows } from "../helpers/factories";
import { received, remoteUrl } from "../helpers/fake-remote";
import { call, type Credentials } from "../helpers/http";
import { signedHeader, supplierWithRule } from "../helpers/suppliers";
import { waitFor } from "../helpers/wait";

const MAX_LINES = 500;
const lines = (n: number) =>
  Array.from({ length: n }, (_, i) => ({ external_id: `l${i}`, name: `Line ${i}`, reference: `SKU-${i}`, quantity: 2, price: 1.5, purchase_price: 0.75 }));

async function bigOrder(creds: Credentials, n = MAX_LINES) {
  const res = await call("POST", "/api/v1/orders", { creds, body: orderPayload({ products: lines(n) }) });
  expect(res.status, res.text).toBe(200);
  expect(res.json.message).toBe("Order created");
  return String(res.json.reference);
}

const statusesOf = async (creds: Credentials, reference: string) =>
  (await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines.map((l: { current_status: string }) => l.current_status) as string[];

async function dispatchesWhen(creds: Credentials, reference: string, status: string) {
  return waitFor(async () => {
    const data = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;
    return data.length > 0 && data.every((d: { status: string }) => d.status === status) ? data : null;
  }, 20_000);
}

describe("a 500-line order (the maximum)", () => {
  it("to a webhook supplier: matched, sent as one signed document of 500 lines, every line completed once", async () => {
    const creds = await createAccount();
    const url = remoteUrl("ok");
    const { supplier } = await supplierWithRule(creds, { channel: "webhook", webhook_url: url });
    const reference = await bigOrder(creds);

    const [dispatch] = await dispatchesWhen(creds, reference, "sent");
    expect(dispatch.line_ids).toHaveLength(MAX_LINES);
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    expect(order.order_lines).toHaveLength(MAX_LINES);
    for (const line of order.order_lines) {
      expect(line.matched_supplier).toEqual({ id: supplier.id, name: supplier.name });
      expect(line.logs.map((l: { status: string }) => l.status)).toEqual(["pending", "ruled", "completed"]);
      expect(line.logs[2].message).toBe("Successfully sent to supplier");
    }
    const requests = await received(url);
    expect(requests).toHaveLength(1);
    const doc = JSON.parse(requests[0].body);
    expect(doc.lines.map((l: { external_id: string }) => l.external_id)).toEqual(lines(MAX_LINES).map((l) => l.external_id));
    expect(requests[0].headers["idempotency-key"]).toBe(dispatch.idempotency_key);
  }, 40_000);

  it("to a pull supplier: fetchable, and answered with 500 answers in one call; 501 answers are a 422", async () => {
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, { channel: "pull" });
    const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key;
    const headers = { authorization: `Bearer ${key}` };
    const reference = await bigOrder(creds);
    const [dispatch] = await dispatchesWhen(creds, reference, "awaiting_pickup");
    expect(dispatch.line_ids).toHaveLength(MAX_LINES);

    const fetched = await call("GET", "/api/v1/supplier/orders", { headers });
    expect(fetched.json.data.map((d: { dispatch_id: number; lines: unknown[] }) => [d.dispatch_id, d.lines.length])).toEqual([[dispatch.id, MAX_LINES]]);

    const ids: number[] = dispatch.line_ids;
    const tooMany = await call("POST", "/api/v1/supplier/answers", {
      headers,
      body: { answers: [...ids, ids[0]].map((id) => ({ line_id: id, action: "accept" })) },
    });
    expect(tooMany.status).toBe(422);
    expect(tooMany.json).toEqual({ message: "Errors", errors: { answers: ["The answers field must not have more than 500 items."] } });
    expect(new Set(await statusesOf(creds, reference))).toEqual(new Set(["ruled"]));

    // Half accepted, a quarter declined, a quarter shipped: 500 answers in one all-or-nothing call.
    const answers = ids.map((id, i) =>
      i % 4 === 1 ? { line_id: id, action: "decline", reason: "out of stock" } : i % 4 === 3 ? { line_id: id, action: "ship", carrier: "PostNL", tracking_number: `T${i}` } : { line_id: id, action: "accept" },
    );
    const answered = await call("POST", "/api/v1/supplier/answers", { headers, body: { answers } });
    expect(answered.status, answered.text).toBe(200);
    expect(answered.json.results).toEqual(ids.map((id, i) => ({ line_id: id, current_status: i % 4 === 1 ? "declined" : "completed" })));
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    order.order_lines.forEach((line: any, i: number) => {
      expect(line.current_status).toBe(i % 4 === 1 ? "declined" : "completed");
      expect(line.shipments).toHaveLength(i % 4 === 3 ? 1 : 0);
    });
    const [{ shipments }] = await rows<{ shipments: number }>("SELECT count(*) AS shipments FROM shipments WHERE account_id = ?", creds.accountId);
    expect(shipments).toBe(MAX_LINES / 4);
    // Every line is answered: the order is complete.
    const done = await call("GET", "/api/v1/orders?completed_since=2000-01-01", { creds });
    expect(done.json.data.map((o: { reference: string }) => o.reference)).toEqual([reference]);
  }, 40_000);

  it("to a manual supplier: completed by hand with all 500 line_ids; 501 line_ids are a 422", async () => {
    const creds = await createAccount();
    await supplierWithRule(creds, { channel: "manual" });
    const reference = await bigOrder(creds);
    const [dispatch] = await dispatchesWhen(creds, reference, "manual");
    const ids: number[] = dispatch.line_ids;
    expect(ids).toHaveLength(MAX_LINES);

    const before = await accountState(creds.accountId)();
    const tooMany = await call("POST", `/api/v1/orders/${reference}/complete`, { creds, body: { line_ids: [...ids, ids[0]] } });
    expect(tooMany.status).toBe(422);
    expect(tooMany.json).toEqual({ message: "Errors", errors: { line_ids: ["The line_ids field must not have more than 500 items."] } });
    expect(await accountState(creds.accountId)()).toEqual(before);

    const completed = await call("POST", `/api/v1/orders/${reference}/complete`, { creds, body: { line_ids: ids } });
    expect(completed.status, completed.text).toBe(200);
    expect(new Set(completed.json.order_lines.map((l: { current_status: string }) => l.current_status))).toEqual(new Set(["completed"]));
    expect(completed.json.order_lines.every((l: { logs: { message: string }[] }) => l.logs.at(-1)!.message === "Completed by hand")).toBe(true);
    expect((await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data[0].status).toBe("sent");
  }, 40_000);

  it("a 120-line order to a pull supplier reaches the supplier (the size that used to stall)", async () => {
    const creds = await createAccount();
    await supplierWithRule(creds, { channel: "pull" });
    const reference = await bigOrder(creds, 120);
    const [dispatch] = await dispatchesWhen(creds, reference, "awaiting_pickup");
    expect(dispatch.line_ids).toHaveLength(120);
  }, 30_000);
});

describe("the order list at its maximum filters", () => {
  it("filters by 100 supplier_ids; 101 are a 422", async () => {
    const creds = await createAccount();
    const suppliers: number[] = [];
    for (let i = 0; i < 100; i++) {
      const res = await call("POST", "/api/v1/suppliers", { creds, body: { name: `S${i}` } });
      suppliers.push(res.json.id);
    }
    const target = suppliers[99];
    await call("POST", "/api/v1/routing-rules", { creds, body: { name: "all", conditions: [], action: { type: "assign_supplier", supplier_id: target } } });
    const reference = await bigOrder(creds, 2);
    await waitFor(async () => (await statusesOf(creds, reference)).every((s) => s === "ruled"));

    const list = await call("GET", `/api/v1/orders?supplier_ids=${suppliers.join(",")}`, { creds });
    expect(list.status, list.text).toBe(200);
    expect(list.json.data.map((o: { reference: string }) => o.reference)).toEqual([reference]);
    const others = await call("GET", `/api/v1/orders?supplier_ids=${suppliers.slice(0, 99).join(",")}`, { creds });
    expect(others.json.data).toEqual([]);

    const tooMany = await call("GET", `/api/v1/orders?supplier_ids=${[...suppliers, 999_999].join(",")}`, { creds });
    expect(tooMany.status).toBe(422);
    expect(tooMany.json).toEqual({ message: "Errors", errors: { supplier_ids: ["The supplier_ids field must list between 1 and 100 values."] } });
  }, 40_000);
});

describe("the product search at its maximum length", () => {
  it("searches with 255 characters (multi-byte too); 256 are a 422", async () => {
    const creds = await createAccount();
    const long = "Ω".repeat(200) + "x".repeat(55);
    const res = await call("GET", `/api/v1/products?search=${encodeURIComponent(long)}`, { creds });
    expect(res.status, res.text).toBe(200);
    expect(res.json.total).toBe(0);
    const past = await call("GET", `/api/v1/products?search=${encodeURIComponent(long + "x")}`, { creds });
    expect(past.status).toBe(422);
    expect(past.json).toEqual({ message: "Errors", errors: { search: ["The search field must not be greater than 255 characters."] } });
  });

  it("finds a product by a substring longer than D1's 50-byte pattern cap, case-insensitively, % and _ literally", async () => {
    const creds = await createAccount();
    const name = `Extra large garden parasol 100% weatherproof_${"x".repeat(40)} with stand`;
    const { feed } = await createFeed(creds, { format: "json" });
    const push = await pushJson(creds, feed.id, [{ sku: "P-1", name }, { sku: "P-2", name: "Garden chair" }]);
    expect(push.status, push.text).toBe(200);
    const search = (q: string) => call("GET", `/api/v1/products?search=${encodeURIComponent(q)}`, { creds });
    const hit = await search(`LARGE GARDEN PARASOL 100% WEATHERPROOF_${"X".repeat(40)}`);
    expect(hit.status, hit.text).toBe(200);
    expect(hit.json.data.map((p: { sku: string }) => p.sku)).toEqual(["P-1"]);
    expect((await search("100_ weather")).json.data).toEqual([]);
    expect((await search("garden")).json.data.map((p: { sku: string }) => p.sku)).toEqual(["P-1", "P-2"]);
  });
});

describe("signed supplier callbacks at the maximum", () => {
  it("applies 500 answers in one signed call", async () => {
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, { channel: "manual" });
    const reference = await bigOrder(creds);
    const [dispatch] = await dispatchesWhen(creds, reference, "manual");
    const body = JSON.stringify({ answers: dispatch.line_ids.map((id: number) => ({ line_id: id, action: "accept" })) });
    const res = await call("POST", `/api/v1/supplier-callbacks/${supplier.id}`, {
      rawBody: body,
      headers: { "content-type": "application/json", "x-webhook-signature": await signedHeader(supplier.webhook_secret, body) },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json.results).toHaveLength(MAX_LINES);
    expect(new Set(await statusesOf(creds, reference))).toEqual(new Set(["completed"]));
  }, 40_000);
});
