// The handlers of the order page's actions: the same services as POST /api/v1/orders/{reference}/block,
// unblock, match, retry, complete, and the console's "Add shipment". A refused one renders the order
// again (order.pages.tsx) with its messages; a done one redirects back to it with a notice.
import { z } from "@hono/zod-openapi";
import { Hono, type Context } from "hono";
import { attempt, done, formFields, text } from "../console/forms";
import { completeByHand, retryFailedLines } from "../forwarding/forwarding.service";
import { recordShipmentByHand } from "../forwarding/shipments-by-hand";
import { idOrNotFound } from "../lib/params";
import { SHIPMENT_LABELS } from "./shipment-by-hand.pages";
import { matchNow, setBlocked } from "../routing/routing.service";
import type { AppEnv } from "../env";
import { field, validateForm } from "../lib/validation";
import { count } from "../lib/plural";
import { renderOrder } from "./order.pages";
import { ACTION_LABELS, type ActionForm } from "./order-actions";

export const orderActionPages = new Hono<AppEnv>();

// ---- Actions: the same services as POST /api/v1/orders/{reference}/block, unblock, match, retry, complete
// The API's bodies (BlockRequest; the complete request, whose line_ids the form requires: a person chooses lines).
const ReasonForm = z.object({ reason: field.optionalText(500) });
const CompleteForm = z.object({ line_ids: z.array(field.int({ min: 1, max: 1e15 })).min(1).max(500) });
const orderPath = (c: Context<AppEnv>) => `/console/orders/${c.req.param("reference")}`;
const refused = (c: Context<AppEnv>, form: ActionForm) => {
  c.status(Object.keys(form.errors).length ? 422 : 409);
  return renderOrder(c, form);
};

for (const blocked of [true, false]) {
  const action = blocked ? "block" : "unblock";
  orderActionPages.post(`/orders/:reference/${action}`, async (c) => {
    const values = await formFields(c);
    const checked = validateForm(ReasonForm, { reason: text(values, "reason") }, ACTION_LABELS);
    if (!checked.ok) return refused(c, { action, values, errors: checked.errors });
    await setBlocked(c.get("db"), c.get("pipeline"), c.get("account").id, c.req.param("reference"), blocked, checked.data.reason);
    const why = checked.data.reason ? ` (${checked.data.reason})` : "";
    return done(c, orderPath(c), {
      kind: "success",
      text: blocked ? `Order blocked${why}: nothing of it is matched or sent until it is unblocked.` : `Order unblocked${why}: its lines are matched and sent again.`,
    });
  });
}

orderActionPages.post("/orders/:reference/match", async (c) => {
  const { outcome } = await matchNow(c.get("db"), c.get("pipeline"), c.get("account").id, c.req.param("reference"));
  const lines = (n: number, what: string) => `${count(n, "line")} ${what}`;
  const text =
    outcome.status === "blocked"
      ? "The order is blocked: unblock it to match its lines."
      : outcome.blockedNow
        ? "Matched now: a block rule holds, so the order is blocked."
        : `Matched now: ${[lines(outcome.ruled, "to a supplier"), lines(outcome.skipped, "skipped"), lines(outcome.unmatched, "still without a supplier")].join(", ")}.`;
  return done(c, orderPath(c), { kind: outcome.status === "blocked" || outcome.unmatched > 0 ? "info" : "success", text });
});

orderActionPages.post("/orders/:reference/retry", async (c) => {
  const { retried } = await retryFailedLines(c.get("db"), c.get("pipeline"), c.get("account").id, c.req.param("reference"));
  return done(c, orderPath(c), {
    kind: retried ? "success" : "info",
    text: retried ? `${count(retried, "failed line")} ${retried === 1 ? "is" : "are"} being sent again.` : "No line has failed: nothing to retry.",
  });
});

// A reload of a page rendered by a refused shipment form: back to the order.
orderActionPages.get("/orders/:reference/lines/:lineId/shipments", (c) => c.redirect(orderPath(c), 303));

orderActionPages.post("/orders/:reference/lines/:lineId/shipments", async (c) => {
  const lineId = idOrNotFound(c.req.param("lineId"), "Order line");
  const values = await formFields(c);
  const input = { quantity: text(values, "quantity"), carrier: text(values, "carrier"), tracking_number: text(values, "tracking_number"), tracking_url: text(values, "tracking_url"), shipment_id: text(values, "shipment_id") };
  const by = { channel: "console" as const, api_key_id: c.get("account").apiKeyId, session_id: c.get("session").sessionId };
  const result = await attempt(() => recordShipmentByHand(c.get("db"), c.get("pipeline"), c.get("account").id, c.req.param("reference"), lineId, input, by), SHIPMENT_LABELS);
  if (!result.ok) {
    c.status(Object.keys(result.errors).length ? 422 : 409);
    return renderOrder(c, undefined, undefined, { lineId, values: input, errors: result.errors, message: result.message });
  }
  return done(c, `${orderPath(c)}#line-${lineId}`, { kind: "success", text: `Shipment added to line #${lineId}.` });
});

orderActionPages.post("/orders/:reference/complete", async (c) => {
  const values = await formFields(c, ["line_ids"]);
  const checked = validateForm(CompleteForm, { line_ids: values.line_ids }, ACTION_LABELS);
  if (!checked.ok) return refused(c, { action: "complete", values, errors: checked.errors });
  const lineIds = checked.data.line_ids;
  const result = await attempt(() => completeByHand(c.get("db"), c.get("account").id, c.req.param("reference"), lineIds), ACTION_LABELS);
  if (!result.ok) return refused(c, { action: "complete", values, errors: result.errors, message: result.message });
  return done(c, orderPath(c), { kind: "success", text: `${count(lineIds.length, "line")} completed by hand.` });
});
