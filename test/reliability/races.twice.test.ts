// Two of the same at once, against the real local D1 and Queue: two cancellations of the same line
// (one is written, the other is told the line is already being cancelled), and two declines of two
// lines of one order in separate calls (each line goes on to the next supplier once, and the
// pipeline sends both there).
import { describe, expect, it } from "vitest";
import { cancel, cancellationsOf, getOrder, sentOrder } from "../helpers/cancellations";
import { createAccount, createOrder, orderPayload, recordEvents, rows } from "../helpers/factories";
import { call } from "../helpers/http";
import { logsOf } from "../helpers/routing";
import { answer, awaitingPickup, supplierChain } from "../helpers/suppliers";
import { pipelineIdle } from "../helpers/wait";

const eventsOf = async (accountId: number, type: string) =>
  (await rows<{ data: string }>("SELECT data FROM events WHERE account_id = ? AND type = ? ORDER BY rowid", accountId, type)).map((r) => JSON.parse(r.data));

describe("two cancellations of the same line at once", () => {
  it("one is written; every other is the 409 of a line already being cancelled, and wrote nothing", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    const { supplier, reference, lineIds } = await sentOrder(creds, { channel: "pull" });
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => cancel(creds, reference, { line_ids: [lineIds[0]], reason: `try ${i}` })));
    const won = answers.filter((r) => r.status === 200);
    expect(won).toHaveLength(1);
    for (const lost of answers.filter((r) => r.status !== 200)) {
      expect({ status: lost.status, json: lost.json }).toEqual({
        status: 409,
        json: { message: "Conflict", error: `Order line ${lineIds[0]} already has a cancellation waiting for supplier ${supplier.name}'s answer.` },
      });
    }
    // One request, of the call that won, and one of everything it writes.
    const requests = await cancellationsOf(creds, reference);
    expect(requests.map((r: { lines: { line_id: number }[] }) => r.lines.map((l) => l.line_id))).toEqual([[lineIds[0]]]);
    expect(won[0].json.order_lines[0].cancellation).toEqual({ id: requests[0].id, quantity: 5, supplier_id: supplier.id, requested_at: requests[0].created_at });
    expect((await eventsOf(creds.accountId, "order.cancelled")).map((e) => e.reason)).toEqual([requests[0].reason]);
    const order = await getOrder(creds, reference);
    expect(logsOf(order.order_lines[0]).filter(([, message]) => message.startsWith("Cancellation of"))).toEqual([
      ["ruled", `Cancellation of 5 of 5 requested from supplier ${supplier.name}: ${requests[0].reason}`],
    ]);
  });
});

describe("two declines at once, of two lines of one order", () => {
  it("each line goes on to the next supplier once, and the pipeline sends both there", async () => {
    const creds = await createAccount();
    await recordEvents(creds.accountId);
    const [a, b] = await supplierChain(creds, [{ channel: "pull" }, { channel: "pull" }]);
    const { reference } = await createOrder(
      creds,
      orderPayload({
        products: [
          { external_id: "mug", name: "Blue mug", quantity: 2, price: 10 },
          { external_id: "cup", name: "Cup", quantity: 1, price: 4 },
        ],
      }),
    );
    const lineIds = (await awaitingPickup(a.key!, reference)).lines.map((l: { id: number }) => l.id) as number[];
    const declined = await Promise.all(lineIds.map((id) => answer(a.key!, [{ line_id: id, action: "decline", reason: "out of stock" }])));
    expect(declined.map((r) => r.json)).toEqual(lineIds.map((id) => ({ results: [{ line_id: id, current_status: "declined" }] })));
    await pipelineIdle(creds.accountId);

    const order = await getOrder(creds, reference);
    expect(order.order_lines.map((l: { id: number; current_status: string; matched_supplier: { id: number } }) => [l.id, l.current_status, l.matched_supplier.id])).toEqual(
      lineIds.map((id) => [id, "ruled", b.supplier.id]),
    );
    for (const line of order.order_lines) {
      expect(logsOf(line).filter(([status]) => status === "declined")).toEqual([
        ["declined", `Declined by supplier ${a.supplier.name}: out of stock; routed to supplier ${b.supplier.name}`],
      ]);
    }
    expect((await eventsOf(creds.accountId, "order_line.rerouted")).map((e) => e.line.id).sort((x: number, y: number) => x - y)).toEqual([...lineIds].sort((x: number, y: number) => x - y));
    // B has each line once, in whatever dispatches the pipeline made of them.
    const pulled = (await call("GET", "/api/v1/supplier/orders", { headers: { authorization: `Bearer ${b.key}` } })).json.data;
    expect(pulled.flatMap((d: { lines: { id: number }[] }) => d.lines.map((l) => l.id)).sort((x: number, y: number) => x - y)).toEqual([...lineIds].sort((x: number, y: number) => x - y));
    expect((await call("GET", "/api/v1/supplier/orders", { headers: { authorization: `Bearer ${a.key}` } })).json.data).toEqual([]);
  });
});
