import { describe, expect, it } from "vitest";
import { createAccount, createOrder, orderPayload } from "../helpers/factories";
import { call } from "../helpers/http";
import { orderSettled, supplierWithRule } from "../helpers/suppliers";
import { waitFor } from "../helpers/wait";

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

async function dispatchStatus(creds: any, reference: string, status: string) {
  return waitFor(async () => {
    const res = await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds });
    return res.json.data.length && res.json.data.every((d: any) => d.status === status) ? res.json.data : null;
  });
}

describe("pull channel", () => {
  it("lets the supplier fetch its orders (JSON and CSV) with its own key, and acknowledge them", async () => {
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, { channel: "pull" });
    const key = await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: { name: "warehouse" } });
    expect(key.status).toBe(201);
    expect(key.json).toEqual({ id: expect.any(Number), supplier_id: supplier.id, name: "warehouse", key: expect.stringMatching(/^osk_/), prefix: key.json.key.slice(0, 10), created_at: expect.any(String) });
    const { reference } = await createOrder(creds);
    const [dispatch] = await dispatchStatus(creds, reference, "awaiting_pickup");
    const waiting = await call("GET", "/api/v1/orders/" + reference, { creds });
    expect(waiting.json.order_lines[0].current_status).toBe("ruled");
    expect(waiting.json.order_lines[0].logs.at(-1).message).toBe(`Waiting for supplier ${supplier.name} to fetch and acknowledge the order`);

    const list = await call("GET", "/api/v1/supplier/orders", { headers: bearer(key.json.key) });
    expect(list.status).toBe(200);
    expect(list.json.meta.total).toBe(1);
    expect(list.json.data[0]).toMatchObject({ dispatch_id: dispatch.id, status: "awaiting_pickup", order: { reference }, lines: [{ external_id: "sku-1", quantity: 2 }] });

    const csv = await call("GET", "/api/v1/supplier/orders?format=csv", { headers: bearer(key.json.key) });
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    const rows = csv.text.trim().split("\r\n");
    expect(rows[0]).toBe(
      "dispatch_id,order_reference,order_external_id,line_id,line_external_id,sku,ean13,name,quantity,purchase_price,height,width,length,weight,ship_to_name,ship_to_company,ship_to_address1,ship_to_address2,ship_to_postcode,ship_to_city,ship_to_state,ship_to_country,ship_to_phone,delivery_date,note",
    );
    expect(rows[1]).toBe(
      `${dispatch.id},${reference},${waiting.json.external_id},${waiting.json.order_lines[0].id},sku-1,MUG-BLUE,0012345678905,Blue mug,2,6.25,,,,,Jan Jansen,Jansen BV,Damrak 1,3hoog,1012LG,Amsterdam,Noord-Holland,NL,0612345678,2026-11-30,Ring twice`,
    );

    const ack = await call("POST", `/api/v1/supplier/orders/${dispatch.id}/ack`, { headers: bearer(key.json.key) });
    expect(ack.status).toBe(200);
    expect(ack.json).toEqual({ dispatch_id: dispatch.id, status: "acknowledged", acknowledged_at: expect.any(String) });
    const again = await call("POST", `/api/v1/supplier/orders/${dispatch.id}/ack`, { headers: bearer(key.json.key) });
    expect(again.json).toEqual(ack.json);
    const order = await call("GET", "/api/v1/orders/" + reference, { creds });
    expect(order.json.order_lines[0].current_status).toBe("completed");
    expect(order.json.order_lines[0].logs.filter((l: any) => l.status === "completed").map((l: any) => l.message)).toEqual([
      `Acknowledged by supplier ${supplier.name}`,
    ]);
    const empty = await call("GET", "/api/v1/supplier/orders", { headers: bearer(key.json.key) });
    expect(empty.json.data).toEqual([]);
  });

  it("keeps suppliers apart and refuses other credentials", async () => {
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, { channel: "pull" });
    const other = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Other", channel: "pull" } });
    const otherKey = (await call("POST", `/api/v1/suppliers/${other.json.id}/keys`, { creds, body: {} })).json.key;
    const { reference } = await createOrder(creds);
    const [dispatch] = await dispatchStatus(creds, reference, "awaiting_pickup");

    expect((await call("GET", "/api/v1/supplier/orders", { headers: bearer(otherKey) })).json.data).toEqual([]);
    expect(await call("POST", `/api/v1/supplier/orders/${dispatch.id}/ack`, { headers: bearer(otherKey) })).toMatchObject({
      status: 404,
      json: { message: "Not Found", error: `Order with dispatch id '${dispatch.id}' not found` },
    });
    // The account's own api-key is not a supplier key.
    expect(await call("GET", "/api/v1/supplier/orders", { creds })).toMatchObject({
      status: 401,
      json: { message: "Unauthorized", error: "The Authorization header must carry a supplier key: Bearer <key>." },
    });
    const revoked = await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} });
    expect((await call("DELETE", `/api/v1/suppliers/${supplier.id}/keys/${revoked.json.id}`, { creds })).status).toBe(204);
    expect(await call("GET", "/api/v1/supplier/orders", { headers: bearer(revoked.json.key) })).toMatchObject({
      status: 401,
      json: { message: "Unauthorized", error: "The supplier key is invalid or revoked." },
    });
    // Another account cannot issue keys for this supplier.
    const stranger = await createAccount();
    expect((await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds: stranger, body: {} })).status).toBe(404);
  });
});

describe("email channel", () => {
  it("e-mails the order and completes the lines; what was sent is readable", async () => {
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, { channel: "email", email: "orders@supplier.example" });
    const { reference } = await createOrder(creds);
    const order = await orderSettled(creds, reference, ["completed"]);
    expect(order.order_lines[0].logs.at(-1).message).toBe(`Successfully sent to supplier ${supplier.name} by e-mail`);
    const [dispatch] = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;
    expect(dispatch).toMatchObject({ channel: "email", status: "sent", attempts: 1 });
    expect(dispatch.payload.order.reference).toBe(reference);
  });

  it("requires an address for the e-mail channel and a URL for the webhook channel", async () => {
    const creds = await createAccount();
    expect(await call("POST", "/api/v1/suppliers", { creds, body: { name: "A", channel: "email" } })).toMatchObject({
      status: 422,
      json: { message: "Errors", errors: { email: ["The email field is required when channel is email."] } },
    });
    expect(await call("POST", "/api/v1/suppliers", { creds, body: { name: "B", channel: "webhook", webhook_url: "ftp://x" } })).toMatchObject({
      status: 422,
      json: { message: "Errors", errors: { webhook_url: ["The webhook_url field must be a valid http(s) URL."] } },
    });
    // Spelled out, as every URL we take: two slashes, a host, no user before it.
    for (const webhook_url of ["https:supplier.example/orders", "https://supplier.example@elsewhere.example/orders"]) {
      expect(await call("POST", "/api/v1/suppliers", { creds, body: { name: "C", channel: "webhook", webhook_url } }), webhook_url).toMatchObject({
        status: 422,
        json: { message: "Errors", errors: { webhook_url: ["The webhook_url field must be a valid http(s) URL."] } },
      });
    }
  });
});

describe("manual channel", () => {
  it("waits for the shop to complete lines by hand", async () => {
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, {});
    const { reference } = await createOrder(creds, orderPayload({ products: [
      { external_id: "a", name: "A", quantity: 1, price: 1 },
      { external_id: "b", name: "B", quantity: 1, price: 1 },
    ] }));
    await dispatchStatus(creds, reference, "manual");
    const before = await call("GET", `/api/v1/orders/${reference}`, { creds });
    // Nothing is sent, and nothing but the match is logged: the lines wait, ruled.
    expect(before.json.order_lines.map((l: any) => l.logs.at(-1).message)).toEqual([
      expect.stringContaining(`Matched to supplier ${supplier.name}`),
      expect.stringContaining(`Matched to supplier ${supplier.name}`),
    ]);
    const first = before.json.order_lines[0].id;
    const one = await call("POST", `/api/v1/orders/${reference}/complete`, { creds, body: { line_ids: [first] } });
    expect(one.status).toBe(200);
    expect(one.json.order_lines.map((l: any) => l.current_status)).toEqual(["completed", "ruled"]);
    const conflict = await call("POST", `/api/v1/orders/${reference}/complete`, { creds, body: { line_ids: [first] } });
    expect(conflict).toMatchObject({ status: 409, json: { message: "Conflict", error: `Order line ${first} is completed; only ruled lines can be completed by hand.` } });
    const rest = await call("POST", `/api/v1/orders/${reference}/complete`, { creds });
    expect(rest.json.order_lines.map((l: any) => l.current_status)).toEqual(["completed", "completed"]);
    const done = await call("GET", `/api/v1/orders?completed_since=2000-01-01`, { creds });
    expect(done.json.data.map((o: any) => o.reference)).toEqual([reference]);
  });
});
