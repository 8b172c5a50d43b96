// The order page's "Events sent to the shop": what the account's webhooks were told about this
// order, newest first, each with how its deliveries went (a link to the webhook's page, where a
// delivery's every attempt is shown and it can be redelivered).
import type { LineStatus } from "../db/schema";
import { Badge, LineStatusBadge } from "../ui/badge";
import { DataTable } from "../ui/table";
import { LocalTime } from "../ui/time";
import type { OrderEvent } from "./order-events.service";
import { DELIVERY_LOOK } from "./webhooks.pages";
import { count } from "../lib/plural";

type Data = {
  line?: { external_id?: string; status?: LineStatus; previous_status?: LineStatus | null };
  shipment?: { quantity?: number; carrier?: string | null; tracking_number?: string | null };
  message?: string;
  reason?: string | null;
};

function What({ event }: { event: OrderEvent }) {
  const data = event.data as Data;
  const line = data.line;
  const shipment = data.shipment;
  const said = data.message ?? data.reason ?? null;
  return (
    <>
      {line?.external_id ? <>Line {line.external_id} </> : null}
      {line?.status && event.type === "order_line.status_changed" ? (
        <>
          {line.previous_status ? <LineStatusBadge status={line.previous_status} /> : "new"} → <LineStatusBadge status={line.status} />{" "}
        </>
      ) : null}
      {shipment ? (
        <>
          {`${shipment.quantity ?? ""} shipped`}
          {shipment.carrier ? ` with ${shipment.carrier}` : ""}
          {shipment.tracking_number ? ` (${shipment.tracking_number})` : ""}{" "}
        </>
      ) : null}
      {said ? <span class="response">{said}</span> : null}
    </>
  );
}

function Deliveries({ event }: { event: OrderEvent }) {
  if (event.deliveries.length === 0) {
    return <span class="muted">{event.publishedAt ? "no webhook takes this event" : "not delivered yet"}</span>;
  }
  return (
    <ul class="plain">
      {event.deliveries.map((d) => (
        <li>
          <a href={`/console/webhooks/${d.subscriptionId}`}>Webhook #{d.subscriptionId}</a>: <Badge tone={DELIVERY_LOOK[d.status].tone}>{DELIVERY_LOOK[d.status].label}</Badge>
          {d.attempts ? ` · ${count(d.attempts, "attempt")}` : ""}
          {d.status !== "delivered" && (d.lastStatusCode !== null || d.lastError) ? (
            <span class="response"> · {d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : d.lastError}</span>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

export function OrderEvents({ total, events, activeWebhook }: { total: number; events: OrderEvent[]; activeWebhook: boolean }) {
  return (
    <section aria-labelledby="events-heading">
      <h2 id="events-heading">Events sent to the shop</h2>
      {total === 0 && activeWebhook ? (
        <p class="muted">
          No events about this order. Events are recorded while the account has an active webhook: this order has not changed since one was active. See{" "}
          <a href="/console/webhooks">Webhooks</a>.
        </p>
      ) : total === 0 ? (
        <p class="muted">
          No events about this order. Events are recorded while the account has an active webhook: add one under <a href="/console/webhooks">Webhooks</a> to be told of
          every change.
        </p>
      ) : (
        <>
          {total > events.length ? <p class="muted">{`The newest ${events.length} of ${count(total, "event")}.`}</p> : null}
          <DataTable<OrderEvent>
            caption="Events about this order, newest first, with their deliveries"
            rows={events}
            columns={[
              { header: "Time", cell: (e) => <LocalTime iso={e.createdAt} /> },
              { header: "Event", cell: (e) => <code>{e.type}</code> },
              { header: "What", cell: (e) => <What event={e} /> },
              { header: "Deliveries", cell: (e) => <Deliveries event={e} /> },
            ]}
          />
        </>
      )}
    </section>
  );
}
