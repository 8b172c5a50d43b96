import { describe, expect, it } from "vitest";
import { createAccount, createOrder } from "../helpers/factories";
import { call } from "../helpers/http";

describe("smoke", () => {
  it("creates and reads an order", async () => {
    const creds = await createAccount();
    const { reference } = await createOrder(creds);
    const res = await call("GET", `/api/v1/orders/${reference}`, { creds });
    expect(res.status).toBe(200);
    expect(res.json.reference).toBe(reference);
    const list = await call("GET", `/api/v1/orders`, { creds });
    expect(list.status).toBe(200);
    expect(list.json.meta.total).toBe(1);
  });
});
