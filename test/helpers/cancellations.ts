// Orders in the states a cancellation meets, for the cancellation tests: sent on a channel and
// waiting there, or claimed for a send that has not been attempted yet.
import { env } from "cloudflare:workers";
import { createOrder, exec, isoNow, orderIdOf, orderPayload, rows } from "./factories";
import { call, type Credentials } from "./http";
import { waitRouted } from "./routing";
import { supplierWithRule } from "./suppliers";
import { waitFor } from "./wait";

export const cancel = (creds: Credentials, reference: string, body?: unknown) => call("POST", `/api/v1/orders/${reference}/cancel`, { creds, body });
export const getOrder = async (creds: Credentials, reference: string) => (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
export const cancellationsOf = async (creds: Credentials, reference: string) => (await call("GET", `/api/v1/orders/${reference}/cancellations`, { creds })).json.data;

export const twoLines = () =>
  orderPayload({
    products: [
      { external_id: "mug", name: "Blue mug", quantity: 5, price: 10 },
      { external_id: "cup", name: "Cup", quantity: 1, price: 4 },
    ],
  });

/** The dispatch status each channel leaves a sent order in. */
const SENT: Record<string, string> = { webhook: "sent", email: "sent", pull: "awaiting_pickup", manual: "manual" };

/** An order sent to a supplier on this channel (settings: channel, webhook_url, email), waiting there. */
export async function sentOrder(creds: Credentials, settings: Record<string, unknown>, payload = twoLines()) {
  const { supplier, rule } = await supplierWithRule(creds, settings);
  const { reference } = await createOrder(creds, payload);
  const order = await waitFor(async () => {
    const dispatches = (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;
    return dispatches[0]?.status === SENT[String(settings.channel)] ? getOrder(creds, reference) : null;
  });
  return { supplier, rule, reference, order, lineIds: order.order_lines.map((l: { id: number }) => l.id) as number[] };
}

/**
 * An order whose lines the pipeline has claimed into a dispatch for this supplier that no attempt
 * has sent yet (queued, attempts 0): seeded, as no request can hold the pipeline at that moment.
 */
export async function claimedNotSent(creds: Credentials, supplier: { id: number; channel: string }, payload = twoLines()) {
  const { reference } = await createOrder(creds, { ...payload, products: payload.products.map((p: Record<string, unknown>) => ({ ...p, supplier: null })) });
  await waitRouted(creds, reference);
  const orderId = await orderIdOf(reference);
  const now = isoNow();
  const [dispatch] = await rows<{ id: number }>(
    `INSERT INTO dispatches (account_id, order_id, supplier_id, channel, status, idempotency_key, attempts, created_at, updated_at)
     VALUES (?, ?, ?, ?, 'queued', ?, 0, ?, ?) RETURNING id`,
    creds.accountId,
    orderId,
    supplier.id,
    supplier.channel,
    crypto.randomUUID(),
    now,
    now,
  );
  await exec("UPDATE order_lines SET current_status = 'ruled', matched_supplier_id = ?, dispatch_id = ?, move_token = 'seeded' WHERE order_id = ?", supplier.id, dispatch.id, orderId);
  return { reference, orderId, dispatchId: dispatch.id, env };
}
