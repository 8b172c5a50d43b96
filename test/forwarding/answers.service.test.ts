import { describe, expect, it } from "vitest";
import { createAccount, createOrder, orderPayload } from "../helpers/factories";
import { call } from "../helpers/http";
import { signedHeader, supplierWithRule } from "../helpers/suppliers";
import { waitFor } from "../helpers/wait";

const threeLines = orderPayload({
  products: [
    { external_id: "a", name: "A", quantity: 5, price: 1 },
    { external_id: "b", name: "B", quantity: 2, price: 1 },
    { external_id: "c", name: "C", quantity: 1, price: 1 },
  ],
});

async function pulledOrder() {
  const creds = await createAccount();
  const { supplier } = await supplierWithRule(creds, { channel: "pull" });
  const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key;
  const { reference } = await createOrder(creds, { ...threeLines, external_id: `x-${Math.random()}` });
  const order = await waitFor(async () => {
    const d = await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds });
    return d.json.data[0]?.status === "awaiting_pickup" ? (await call("GET", `/api/v1/orders/${reference}`, { creds })).json : null;
  });
  const lineIds: number[] = order.order_lines.map((l: any) => l.id);
  return { creds, supplier, key, reference, lineIds };
}

describe("supplier answers", () => {
  it("declines, confirms part, accepts and ships; the read model shows it and completed_at follows", async () => {
    const { creds, supplier, key, reference, lineIds: [a, b, c] } = await pulledOrder();
    const headers = { authorization: `Bearer ${key}` };
    const res = await call("POST", "/api/v1/supplier/answers", {
      headers,
      body: {
        answers: [
          { line_id: a, action: "partial", quantity: 3, reason: "only 3 left" },
          { line_id: b, action: "decline", reason: "discontinued" },
          { line_id: c, action: "ship", carrier: "PostNL", tracking_number: "3SABC", tracking_url: "https://track.example/3SABC" },
        ],
      },
    });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      results: [
        { line_id: a, current_status: "partially_completed" },
        { line_id: b, current_status: "declined" },
        { line_id: c, current_status: "completed" },
      ],
    });
    // The same shipment reported again is recorded once.
    await call("POST", "/api/v1/supplier/answers", { headers, body: { answers: [{ line_id: c, action: "ship", carrier: "PostNL", tracking_number: "3SABC" }] } });

    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    const [la, lb, lc] = order.order_lines;
    expect(la.confirmed_quantity).toBe(3);
    expect(la.logs.at(-1)).toMatchObject({ status: "partially_completed", message: `Supplier ${supplier.name} confirmed 3 of 5: only 3 left` });
    expect(lb.logs.at(-1)).toMatchObject({ status: "declined", message: `Declined by supplier ${supplier.name}: discontinued` });
    expect(lc.logs.slice(-2).map((l: any) => `${l.status}: ${l.message}`)).toEqual([
      `completed: Accepted by supplier ${supplier.name}`,
      `completed: Shipped 1 by supplier ${supplier.name} via PostNL (tracking 3SABC)`,
    ]);
    expect(lc.shipments).toEqual([
      { id: expect.any(Number), quantity: 1, carrier: "PostNL", tracking_number: "3SABC", tracking_url: "https://track.example/3SABC", created_at: expect.any(String) },
    ]);
    const completed = await call("GET", `/api/v1/orders?completed_since=2000-01-01T00:00:00Z`, { creds });
    expect(completed.json.data.map((o: any) => o.reference)).toEqual([reference]);
  });

  it("counts a shipment without a quantity as all of what was confirmed: the whole line, or its confirmed part", async () => {
    const { creds, key, reference, lineIds: [a, b] } = await pulledOrder();
    const headers = { authorization: `Bearer ${key}` };
    await call("POST", "/api/v1/supplier/answers", { headers, body: { answers: [{ line_id: a, action: "partial", quantity: 3 }] } });
    // b: confirmed in part and shipped in the same call.
    const res = await call("POST", "/api/v1/supplier/answers", {
      headers,
      body: { answers: [{ line_id: a, action: "ship", tracking_number: "T-A" }, { line_id: b, action: "partial", quantity: 1 }, { line_id: b, action: "ship", tracking_number: "T-B" }] },
    });
    expect(res.status, res.text).toBe(200);
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    expect(order.order_lines.slice(0, 2).map((l: { shipments: { quantity: number }[] }) => l.shipments.map((s) => s.quantity))).toEqual([[3], [1]]);
    expect(order.order_lines[0].logs.at(-1).message).toMatch(/^Shipped 3 by supplier /);
  });

  it("refuses answers that do not fit, changing nothing", async () => {
    const { creds, supplier, key, reference, lineIds: [a, b] } = await pulledOrder();
    const headers = { authorization: `Bearer ${key}` };
    await call("POST", "/api/v1/supplier/answers", { headers, body: { answers: [{ line_id: b, action: "decline", reason: "no" }] } });
    const conflict = await call("POST", "/api/v1/supplier/answers", {
      headers,
      body: { answers: [{ line_id: a, action: "accept" }, { line_id: b, action: "ship" }] },
    });
    expect(conflict).toMatchObject({ status: 409, json: { message: "Conflict", error: `The decline of order line ${b} by supplier ${supplier.name} is already recorded; the line cannot be given the answer 'ship'.` } });
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    expect(order.order_lines[0].current_status).toBe("ruled");

    expect(await call("POST", "/api/v1/supplier/answers", { headers, body: { answers: [{ line_id: a, action: "decline" }, { line_id: a, action: "partial", quantity: 9 }] } })).toMatchObject({
      status: 422,
      json: { message: "Errors", errors: { "answers.0.reason": ["The answers.0.reason field is required when action is decline."] } },
    });
    expect(await call("POST", "/api/v1/supplier/answers", { headers, body: { answers: [{ line_id: a, action: "partial", quantity: 9 }] } })).toMatchObject({
      status: 422,
      json: { message: "Errors", errors: { "answers.0.quantity": ["The answers.0.quantity field must be less than the line's quantity (5)."] } },
    });
    // Another supplier's (or account's) line is not found.
    const other = await pulledOrder();
    expect(await call("POST", "/api/v1/supplier/answers", { headers, body: { answers: [{ line_id: other.lineIds[0], action: "accept" }] } })).toMatchObject({
      status: 404,
      json: { message: "Not Found", error: `Order line with id '${other.lineIds[0]}' not found` },
    });
  });
});

/** An order whose line waits for a manual supplier's answer (signed callbacks answer it). */
async function ruledAtManualSupplier() {
  const creds = await createAccount();
  const { supplier } = await supplierWithRule(creds, { channel: "manual" });
  const { reference } = await createOrder(creds, orderPayload({ external_id: `cb-${Math.random()}` }));
  const order = await waitFor(async () => {
    const o = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    return o.order_lines[0].current_status === "ruled" ? o : null;
  });
  return { creds, supplier, reference, order };
}

describe("signed supplier callbacks", () => {
  it("accepts a correctly signed call and rejects bad or stale signatures", async () => {
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, { channel: "manual" });
    const { reference } = await createOrder(creds);
    const order = await waitFor(async () => {
      const o = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
      return o.order_lines[0].current_status === "ruled" ? o : null;
    });
    const body = JSON.stringify({ answers: [{ line_id: order.order_lines[0].id, action: "accept" }] });
    const path = `/api/v1/supplier-callbacks/${supplier.id}`;
    const send = (signature: string) => call("POST", path, { rawBody: body, headers: { "content-type": "application/json", "x-webhook-signature": signature } });

    expect(await send(await signedHeader("whsec_wrong", body))).toMatchObject({ status: 401, json: { message: "Unauthorized", error: "The signature does not match." } });
    expect(await send(await signedHeader(supplier.webhook_secret, body, Date.now() - 10 * 60 * 1000))).toMatchObject({
      status: 401,
      json: { message: "Unauthorized", error: "The signature timestamp is too old or in the future." },
    });
    expect(await send("")).toMatchObject({ status: 401 });
    const ok = await send(await signedHeader(supplier.webhook_secret, body));
    expect(ok).toMatchObject({ status: 200, json: { results: [{ line_id: order.order_lines[0].id, current_status: "completed" }] } });

    // After a rotation the previous secret still verifies, until it is expired.
    await call("POST", `/api/v1/suppliers/${supplier.id}/rotate-secret`, { creds });
    const accept = JSON.stringify({ answers: [{ line_id: order.order_lines[0].id, action: "accept" }] });
    const viaOld = await call("POST", path, { rawBody: accept, headers: { "x-webhook-signature": await signedHeader(supplier.webhook_secret, accept) } });
    expect(viaOld.status).toBe(200);
    await call("POST", `/api/v1/suppliers/${supplier.id}/rotate-secret`, { creds, body: { expire_previous: true } });
    const expired = await call("POST", path, { rawBody: accept, headers: { "x-webhook-signature": await signedHeader(supplier.webhook_secret, accept) } });
    expect(expired.status).toBe(401);
  });

  it("verifies the signature over the raw bytes, and reads them in the charset declared, strictly (no Content-Type: UTF-8)", async () => {
    const { creds, supplier, reference, order } = await ruledAtManualSupplier();
    const lineId = order.order_lines[0].id;
    const path = `/api/v1/supplier-callbacks/${supplier.id}`;
    // {"answers":[{"line_id":…,"action":"decline","reason":"Caf<byte>"}]}, byte for byte.
    const declined = (byte: number) => {
      const text = new TextEncoder().encode(JSON.stringify({ answers: [{ line_id: lineId, action: "decline", reason: "Caf~" }] }));
      return text.map((b) => (b === 0x7e ? byte : b));
    };
    const send = async (body: Uint8Array, type?: string) =>
      call("POST", path, { rawBody: body, headers: { ...(type ? { "content-type": type } : {}), "x-webhook-signature": await signedHeader(supplier.webhook_secret, body) } });

    // Without a Content-Type the body is UTF-8: a byte that is not is refused, as on every route, and nothing is written.
    const notUtf8 = await send(declined(0xe9));
    expect([notUtf8.status, notUtf8.json]).toEqual([
      400,
      {
        message: "Bad Request",
        error: `The body is not valid UTF-8 (byte 0xE9 at offset ${JSON.stringify({ answers: [{ line_id: lineId, action: "decline", reason: "Caf" }] }).length - 4}). Send UTF-8, or declare the charset the body is in: iso-8859-1 (latin1), windows-1252 (cp1252) or us-ascii.`,
      },
    ]);
    expect((await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines[0].current_status).toBe("ruled");
    // Declared iso-8859-1 and signed as sent: verified, and 0xE9 is é.
    const latin = await send(declined(0xe9), "application/json; charset=iso-8859-1");
    expect([latin.status, latin.json]).toEqual([200, { results: [{ line_id: lineId, current_status: "declined" }] }]);
    const logs = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines[0].logs;
    expect(logs.map((l: { message: string }) => l.message)).toContain(`Declined by supplier ${supplier.name}: Café`);
  });

  it("refuses half a surrogate pair in a callback as in every JSON body, with or without a Content-Type: 422, nothing written", async () => {
    const { creds, supplier, reference, order } = await ruledAtManualSupplier();
    const body = `{"answers":[{"line_id":${order.order_lines[0].id},"action":"decline","reason":"Out of stock \\ud800"}]}`;
    for (const type of [undefined, "application/json"]) {
      const res = await call("POST", `/api/v1/supplier-callbacks/${supplier.id}`, {
        rawBody: body,
        headers: { ...(type ? { "content-type": type } : {}), "x-webhook-signature": await signedHeader(supplier.webhook_secret, body) },
      });
      expect([res.status, res.json], type).toEqual([
        422,
        {
          message: "Errors",
          errors: {
            "answers.0.reason": [
              "The answers.0.reason field must be Unicode text: \\ud800 is half of a surrogate pair, no character. Send the character itself, or both halves of its pair.",
            ],
          },
        },
      ]);
    }
    expect((await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines[0].current_status).toBe("ruled");
  });
});
