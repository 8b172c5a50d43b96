// A cancellation is a plan (src/orders/cancellations.service.ts planCancel): judged against the
// lines as read, the statements of one batch, and from it the answer and the follow-ups (the
// requests to send to the suppliers that have the lines). Tested here as data: planning writes
// nothing, the test runs the batch.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb, runBatch } from "../../src/db";
import { findOrder } from "../../src/orders/orders.service";
import { planCancel } from "../../src/orders/cancellations.service";
import { sentOrder } from "../helpers/cancellations";
import { createAccount, rows } from "../helpers/factories";
import { remoteUrl } from "../helpers/fake-remote";

describe("a cancellation, planned", () => {
  it("of lines a webhook supplier has: nothing written until its batch runs; then the request is queued, and sending it is the follow-up", async () => {
    const creds = await createAccount();
    const { reference, lineIds } = await sentOrder(creds, { channel: "webhook", webhook_url: remoteUrl("ok") });
    const db = createDb(env.DB);
    const order = await findOrder(db, creds.accountId, reference);
    const plan = await planCancel(db, order, { line_ids: [lineIds[0]], reason: "customer changed their mind" });
    expect(await rows("SELECT count(*) AS n FROM cancellations WHERE order_id = ?", order.id)).toEqual([{ n: 0 }]);

    const { result, followUps } = plan.settle(await runBatch(db, plan.statements));
    const requests = await rows<{ id: number; status: string }>("SELECT id, status FROM cancellations WHERE order_id = ?", order.id);
    expect(requests.map((r) => r.status)).toEqual(["queued"]);
    expect({ result, followUps }).toEqual({
      result: { orderId: order.id, cancelled: 0, requested: 1, queued: [requests[0].id] },
      followUps: [{ type: "send_cancellation", cancellationId: requests[0].id }],
    });
    // The line keeps its state until the supplier answers.
    expect(await rows("SELECT current_status FROM order_lines WHERE id = ?", lineIds[0])).toEqual([{ current_status: "completed" }]);
  });
});
