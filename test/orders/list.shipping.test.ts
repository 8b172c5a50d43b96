// The order list's shipping=not_shipped (issue 31): orders with a line not cancelled whose shipments
// hold less than its quantity, from the facet and counter the triggers keep (drizzle/0040), alone,
// combined and in the export, with every count equal to what the base tables say after each step.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { countsDiff } from "../helpers/counts";
import { createAccount, createOrder, exec } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { answer, awaitingPickup, supplierChain } from "../helpers/suppliers";

const product = (name: string, quantity: number) => ({ external_id: name, name, quantity, price: 1 });

async function listed(creds: Credentials, query: string) {
  const res = await call("GET", `/api/v1/orders?${query}`, { creds });
  expect(res.status, res.text).toBe(200);
  return { total: res.json.meta.total as number, references: (res.json.data as { reference: string }[]).map((o) => o.reference) };
}

describe("GET /api/v1/orders?shipping=not_shipped", () => {
  it("lists the orders not yet shipped in full, as shipments arrive, and its counts stay exact", async () => {
    const creds = await createAccount();
    const [{ key }] = await supplierChain(creds, [{ channel: "pull" }]);
    const order = async (products: ReturnType<typeof product>[]) => {
      const { reference } = await createOrder(creds, { products });
      const dispatch = await awaitingPickup(key!, reference);
      return { reference, lines: (dispatch.lines as { id: number; name: string }[]).map((l) => l.id) };
    };
    const waiting = await order([product("Mug", 1)]);
    const partly = await order([product("Bowl", 3)]);
    const full = await order([product("Plate", 1), product("Cup", 2)]);
    const exact = async () => expect(await countsDiff(env.DB, [creds.accountId])).toEqual({ counters: [], facets: [], fts: [] });

    // Nothing shipped yet: all three.
    expect(await listed(creds, "shipping=not_shipped")).toEqual({ total: 3, references: [full.reference, partly.reference, waiting.reference] });
    const shipped = await answer(key!, [
      { line_id: partly.lines[0], action: "ship", quantity: 2, carrier: "PostNL", tracking_number: "3SPART1" },
      { line_id: full.lines[0], action: "ship", quantity: 1, carrier: "PostNL", tracking_number: "3SFULL1" },
      { line_id: full.lines[1], action: "ship", quantity: 1, carrier: "DHL", tracking_number: "JJDFULL2" },
    ]);
    expect(shipped.status, shipped.text).toBe(200);
    // The last line of "full" has 1 of 2: not yet shipped in full.
    expect(await listed(creds, "shipping=not_shipped")).toEqual({ total: 3, references: [full.reference, partly.reference, waiting.reference] });
    await exact();
    expect((await answer(key!, [{ line_id: full.lines[1], action: "ship", quantity: 1, carrier: "DHL", tracking_number: "JJDFULL3" }])).status).toBe(200);
    expect(await listed(creds, "shipping=not_shipped")).toEqual({ total: 2, references: [partly.reference, waiting.reference] });
    await exact();
    // Combined with another filter (the smaller one drives), and on a page of one.
    expect(await listed(creds, "shipping=not_shipped&statuses=completed")).toEqual({ total: 1, references: [partly.reference] });
    expect(await listed(creds, "shipping=not_shipped&per_page=1&page=2")).toEqual({ total: 2, references: [waiting.reference] });

    // The export follows the filter and says each order's state and tracking numbers.
    const csv = (await call("GET", "/api/v1/orders/export?shipping=not_shipped", { creds })).text.trimEnd().split("\r\n");
    expect(csv.slice(1).map((r) => [r.split(",")[0], ...r.split(",").slice(-2)])).toEqual([
      [partly.reference, "Shipped 2 of 3", "3SPART1"],
      [waiting.reference, "Not sent yet", ""],
    ]);
    const all = (await call("GET", "/api/v1/orders/export", { creds })).text;
    expect(all).toContain(`,Shipped in full,3SFULL1; JJDFULL2; JJDFULL3\r\n`);

    // A cancelled line is not waited for; an order moved to the test flag takes its row along.
    await exec("UPDATE order_lines SET current_status = 'skipped' WHERE order_id = (SELECT id FROM orders WHERE reference = ?)", waiting.reference);
    expect(await listed(creds, "shipping=not_shipped")).toEqual({ total: 1, references: [partly.reference] });
    await exec("UPDATE orders SET test = 1 WHERE reference = ?", partly.reference);
    expect(await listed(creds, "shipping=not_shipped")).toEqual({ total: 0, references: [] });
    expect(await listed(creds, "shipping=not_shipped&include_test=true")).toEqual({ total: 1, references: [partly.reference] });
    await exact();
  });

  it("refuses another value in the list's 422 shape", async () => {
    const creds = await createAccount();
    const res = await call("GET", "/api/v1/orders?shipping=shipped", { creds });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ message: "Errors", errors: { shipping: [expect.stringMatching(/^The selected shipping is invalid\./)] } });
  });
});
