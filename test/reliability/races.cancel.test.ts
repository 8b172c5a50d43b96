// Cancellations that race, driven concurrently against the real local D1 and Queue: a cancellation
// crossing a shipment, and a cancellation crossing the send of the very lines it cancels. Whatever
// wins, the outcome is one of the consistent ones, never half of each.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../src/db";
import { attemptDispatch } from "../../src/routing/failed-sends";
import { carrierPipeline } from "../../src/lib/queue";
import { cancel, cancellationsOf, claimedNotSent, getOrder, sentOrder } from "../helpers/cancellations";
import { createAccount, orderPayload } from "../helpers/factories";
import { received, remoteUrl } from "../helpers/fake-remote";
import { call } from "../helpers/http";
import { answer } from "../helpers/suppliers";
import { waitFor } from "../helpers/wait";

/** Starts `fn` after `ms`: skews two concurrent requests against each other (it proves nothing by waiting). */
const later = <T>(ms: number, fn: () => Promise<T>) => new Promise<T>((resolve, reject) => setTimeout(() => fn().then(resolve, reject), ms));
/** Round by round: either side a few milliseconds behind the other, by growing amounts. */
const skew = (round: number): [number, number] => (round % 2 === 0 ? [0, (round >> 1) * 4] : [(round >> 1) * 4, 0]);

describe("a cancellation crossing a shipment", () => {
  it("either the request is refused by the shipment, or the cancellation finds the line shipped (409): never a request open on a shipped line", async () => {
    const outcomes = new Set<string>();
    for (let round = 0; round < 8; round++) {
      const creds = await createAccount();
      const { supplier, reference, lineIds } = await sentOrder(creds, { channel: "pull" }, orderPayload({ products: [{ external_id: "a", name: "A", quantity: 2, price: 1 }] }));
      const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key;
      // One or the other leaves a little later each round, so the two meet at different points of each other.
      const [first, second] = skew(round);
      const [cancelled, shipped] = await Promise.all([
        later(first, () => cancel(creds, reference, { line_ids: [lineIds[0]], reason: "too late?" })),
        later(second, () => answer(key, [{ line_id: lineIds[0], action: "ship", quantity: 2, carrier: "PostNL" }])),
      ]);
      expect(shipped.json).toEqual({ results: [{ line_id: lineIds[0], current_status: "completed" }] });
      const order = await getOrder(creds, reference);
      const line = order.order_lines[0];
      expect([line.current_status, line.shipments.length, line.cancellation]).toEqual(["completed", 1, null]);
      const requests = await cancellationsOf(creds, reference);
      if (cancelled.status === 200) {
        outcomes.add("requested, then refused by the shipment");
        expect(requests).toHaveLength(1);
        expect(requests[0].lines).toEqual([
          { line_id: lineIds[0], quantity: 2, status: "refused", answered_by: "shipment", answer_reason: "it shipped 2", answered_at: expect.any(String) },
        ]);
      } else {
        outcomes.add("shipped first");
        expect(cancelled.json).toEqual({ message: "Conflict", error: `Order line ${lineIds[0]} was shipped in full; it cannot be cancelled.` });
        expect(requests).toEqual([]);
      }
    }
    // Which one wins is the database's to decide; both are consistent.
    expect(outcomes.size).toBeGreaterThan(0);
  });
});

describe("a cancellation crossing the send of its lines", () => {
  it("either the lines are skipped and the send carries nothing, or the supplier gets the order and then its cancellation request", async () => {
    for (let round = 0; round < 8; round++) {
      const creds = await createAccount();
      const url = remoteUrl("ok");
      const supplier = (await call("POST", "/api/v1/suppliers", { creds, body: { name: `Hook ${round}`, channel: "webhook", webhook_url: url } })).json;
      const { reference, dispatchId } = await claimedNotSent(creds, { id: supplier.id, channel: "webhook" });
      const [first, second] = skew(round);
      const [cancelled] = await Promise.all([
        later(first, () => cancel(creds, reference, { reason: "race" })),
        later(second, () => attemptDispatch(createDb(env.DB), env, carrierPipeline(env), dispatchId)),
      ]);
      expect(cancelled.status).toBe(200);
      const statuses = cancelled.json.order_lines.map((l: { current_status: string }) => l.current_status);
      const orderDocs = (await received(url)).filter((r) => JSON.parse(r.body).type === "order.dispatch");
      if (statuses.every((s: string) => s === "skipped")) {
        expect(orderDocs.every((r) => JSON.parse(r.body).lines.length === 0)).toBe(true);
        expect(await cancellationsOf(creds, reference)).toEqual([]);
      } else {
        // The send won: the supplier has the lines (sent by the time both are done), and is asked to
        // cancel them on its channel.
        expect(statuses.every((s: string) => s === "ruled" || s === "completed")).toBe(true);
        expect((await getOrder(creds, reference)).order_lines.map((l: { current_status: string }) => l.current_status)).toEqual(["completed", "completed"]);
        const requests = await waitFor(async () => {
          const list = await cancellationsOf(creds, reference);
          return list[0]?.status === "requested" ? list : null;
        });
        expect(requests[0].lines.map((l: { status: string }) => l.status)).toEqual(["requested", "requested"]);
        const docs = (await received(url)).map((r) => JSON.parse(r.body).type);
        expect(docs).toEqual(["order.dispatch", "dispatch.cancellation_requested"]);
      }
    }
  });
});
