// The console's page of one order: its lines with their timelines and shipments, what was sent to
// suppliers, the events sent to the shop and what was written back into it. The page is
// GET /api/v1/orders/{reference}'s read with two more statements in the same round trip: its dispatches
// and the events sent to the shop about it (docs/console.md, held by test/console/pages.budget.test.ts).
// Its actions' handlers are order-actions.pages.tsx; a refused one renders this page again (renderOrder).
import { Hono, type Context } from "hono";
import type { Child } from "hono/jsx";
import { COMPLETED_BY_HAND, leftToShip, offersShipmentByHand } from "../forwarding/shipments-by-hand";
import { ShipmentByHandForm, ShipmentRefused, type ShipmentFormState } from "./shipment-by-hand.pages";
import type { AppEnv } from "../env";
import { groupBy } from "../lib/group";
import { Badge, LineStatusBadge } from "../ui/badge";
import { LineProgressBadge } from "./progress-badge";
import { ShippingAddress } from "../ui/address";
import { money, orDash } from "../ui/format";
import { wantsFragment } from "../ui/htmx";
import { LocalTime } from "../ui/time";
import { ShipmentText } from "../ui/tracking";
import { OrderEvents } from "../events/order-events.pages";
import { activeWebhookOf, orderEventsOf, orderEventsStatement, type OrderEvent } from "../events/order-events.service";
import { CancelSection, type CancelForm } from "./cancel-section";
import { InTheShop } from "../shops/write-backs.pages";
import { shopOrderNameOf } from "../shops/platforms";
import { orderWriteBacksStatement, writeBacksOf, type WriteBack } from "../shops/write-back.service";
import { lineProgress, orderProgress, orderProgressWords, shippedOf, workPending, type OrderProgress } from "./progress";
import { LineActions } from "../routing/line-actions.pages";
import { blockReasonOf, getOrder, shippingAddressOf, type OrderDetail } from "./orders.service";
import { count } from "../lib/plural";
import { OrderActions, type ActionForm } from "./order-actions";
import { DispatchesSection } from "./order-dispatches";
import { InvoicedFact } from "./invoice-fact";
import { OrderReturnsSection } from "../returns/order-returns";
import { orderReturnsOf, orderReturnsStatement, type OrderReturns } from "../returns/order-returns.query";
import type { ReturnForm } from "../returns/return-items-form";

export const orderPages = new Hono<AppEnv>();

// ---- One order ------------------------------------------------------------------

orderPages.get("/orders/:reference", (c) => renderOrder(c));

/** The order's page; after a refused action, with the messages beside the action's fields and what was typed. */
export async function renderOrder(c: Context<AppEnv>, form?: ActionForm, cancelForm?: CancelForm, shipmentForm?: ShipmentFormState, returnForm?: ReturnForm) {
  const reference = c.req.param("reference")!;
  const db = c.get("db");
  const accountId = c.get("account").id;
  const detail = await getOrder(db, accountId, reference, {
    dispatches: true,
    alongside: [orderEventsStatement(accountId, reference), orderWriteBacksStatement(accountId, reference), orderReturnsStatement(accountId, reference)],
  });
  const events = { ...orderEventsOf(detail.alongside[0]), activeWebhook: activeWebhookOf(detail.alongside[0]) };
  const writeBacks = writeBacksOf(detail.alongside[1]);
  const returns = orderReturnsOf(detail.alongside[2]);
  const currency = detail.order.currency ?? c.get("account").currency;
  if (wantsFragment(c, "order-lines")) return c.html(<LiveParts detail={detail} csrf={c.get("session").csrfToken} currency={currency} />);
  return c.render(
    <OrderPage
      detail={detail}
      events={events}
      writeBacks={writeBacks}
      csrf={c.get("session").csrfToken}
      form={form}
      cancelForm={cancelForm}
      shipmentForm={shipmentForm}
      returns={returns}
      returnForm={returnForm}
      currency={currency}
    />,
    { title: `Order ${reference}` },
  );
}
function OrderPage({
  detail,
  events,
  writeBacks,
  csrf,
  form,
  cancelForm,
  shipmentForm,
  returns,
  returnForm,
  currency,
}: {
  detail: OrderDetail;
  events: { total: number; events: OrderEvent[]; activeWebhook: boolean };
  writeBacks: WriteBack[];
  csrf: string;
  form?: ActionForm;
  cancelForm?: CancelForm;
  shipmentForm?: ShipmentFormState;
  returns: OrderReturns;
  returnForm?: ReturnForm;
  currency: string;
}) {
  const { order, logs } = detail;
  const blockReason = order.blocked ? blockReasonOf(logs) : null;
  const logsOf = groupBy(logs, (l) => l.orderLineId);
  const inShop = shopOrderNameOf(order.custom ?? null);
  return (
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/console/orders">Orders</a> / <span aria-current="page">{order.reference}</span>
      </nav>
      <hgroup>
        <h1>Order {order.reference}</h1>
        <p>
          External ID <strong>{order.externalId}</strong>{inShop ? <> ({inShop.label} order <strong>{inShop.name}</strong>)</> : null} from {order.source} · created <LocalTime iso={order.createdAt} /> ·{" "}
          <OrderState progress={orderProgress(detail.lines, (l) => ({ logs: logsOf.get(l.id) ?? [] }))} completedAt={order.completedAt} />
        </p>
      </hgroup>
      <p class="badges">
        {order.blocked ? <Badge tone="red">Blocked</Badge> : null}
        {order.test ? <Badge tone="grey">Test order</Badge> : null}
      </p>
      {order.blocked ? (
        <p class="callout" role="note">
          <strong>Blocked:</strong> {blockReason ?? "no reason was logged"}. Nothing of this order is matched or sent until it is unblocked.
        </p>
      ) : null}

      <OrderActions detail={detail} csrf={csrf} form={form} />

      <ShippingSection order={order} currency={currency} />

      <LinesSection detail={detail} csrf={csrf} currency={currency} shipmentForm={shipmentForm} />

      <CancelSection detail={detail} csrfToken={csrf} form={cancelForm} />

      <OrderReturnsSection detail={detail} returns={returns} csrf={csrf} form={returnForm} />

      <DispatchesSection detail={detail} />

      <OrderEvents {...events} />

      <InTheShop writeBacks={writeBacks} csrf={csrf} />

      <section aria-labelledby="explain-heading">
        <h2 id="explain-heading">Why these suppliers</h2>
        <details class="explain" hx-get={`/console/orders/${order.reference}/explain`} hx-trigger="toggle once" hx-target="find .explain-body" hx-swap="innerHTML">
          <summary>Show how each line is matched now: every rule, catalogue product and the supplier field</summary>
          <div class="explain-body" id="explain-body">
            <p>
              <a href={`/console/orders/${order.reference}/explain`}>Open the explanation</a>
            </p>
          </div>
        </details>
      </section>
    </>
  );
}

/**
 * How far the order has got, in the header: with the latest shipment's time once shipped, and with
 * completed_at (when its last line was handed over) once every line is sent or accepted.
 */
/** The order's shipping: its address, method, cost, date, note and total (the live page's and the archived one's). */
export function ShippingSection({ order, currency }: { order: OrderDetail["order"]; currency: string }) {
  return (
    <section aria-labelledby="shipping-heading">
      <h2 id="shipping-heading">Shipping</h2>
      <div class="grid two">
        <ShippingAddress address={shippingAddressOf(order)} />
        <dl class="facts">
          <dt>Method</dt>
          <dd>{orDash([order.shippingName, order.shippingDescription].filter(Boolean).join(" · "))}</dd>
          <dt>Shipping cost</dt>
          <dd>{money(order.shippingCost, currency)}</dd>
          <dt>Delivery date</dt>
          <dd>{orDash(order.shippingDeliveryDate)}</dd>
          <dt>Note</dt>
          <dd>{orDash(order.shippingNote)}</dd>
          <dt>Order total</dt>
          <dd>{money(order.total, currency)}</dd>
        </dl>
      </div>
    </section>
  );
}

export function OrderState({ progress, completedAt }: { progress: OrderProgress; completedAt: string | null }) {
  const at = progress.kind === "shipped" ? progress.lastAt : (progress.kind === "sent" || progress.kind === "accepted") && progress.lines === progress.of ? completedAt : null;
  return (
    <>
      <strong class="order-state">{orderProgressWords(progress)}</strong>
      {at ? (
        <>
          {" "}
          <LocalTime iso={at} />
        </>
      ) : null}
      {progress.attention > 0 && progress.kind !== "waiting" ? ` · ${progress.attention} ${progress.attention === 1 ? "line needs" : "lines need"} attention` : null}
    </>
  );
}

/**
 * The order's lines, each stuck one with its actions (not while the order is blocked). While the
 * pipeline owes the order work (workPending), the section asks for itself again every second (the
 * same GET, htmx naming it as target), with the dispatches out of band; the answer once the work is
 * done carries no trigger, so the polling stops, and brings the actions too (not before: a reason
 * being typed there would be lost).
 */
function LinesSection({ detail, csrf, currency, shipmentForm }: { detail: OrderDetail; csrf: string; currency: string; shipmentForm?: ShipmentFormState }) {
  const logsOf = groupBy(detail.logs, (l) => l.orderLineId);
  const channelOf = new Map(detail.dispatches.map((d) => [d.id, d.channel]));
  const { order } = detail;
  const poll = workPending(order, detail.dispatches)
    ? { "hx-get": `/console/orders/${order.reference}`, "hx-trigger": "every 1s", "hx-target": "this", "hx-swap": "outerHTML" }
    : {};
  return (
    <section aria-labelledby="lines-heading" id="order-lines" {...poll}>
      <h2 id="lines-heading">Lines</h2>
      {poll["hx-get"] ? <p class="muted pending-work">Being matched or sent: the lines update here when it is done.</p> : null}
      <ShipmentRefused form={shipmentForm} />
      {detail.lines.map((line) => {
        const logs = logsOf.get(line.id) ?? [];
        const shipped = shippedOf(line.shipments);
        // A manual supplier's line, or one completed by hand: only the shop can say it shipped.
        const how = { dispatchChannel: line.dispatchId === null ? null : (channelOf.get(line.dispatchId) ?? null), completedByHand: logs.some((l) => l.message === COMPLETED_BY_HAND) };
        return (
          <LineCard
            line={line}
            logs={logs}
            currency={currency}
            actions={
              order.blocked ? null : (
                <>
                  <LineActions reference={order.reference} line={line} csrf={csrf} />
                  {offersShipmentByHand(line, shipped, how) ? (
                    <ShipmentByHandForm reference={order.reference} line={line} left={leftToShip(line, shipped)} csrf={csrf} form={shipmentForm} />
                  ) : null}
                </>
              )
            }
          />
        );
      })}
    </section>
  );
}
/** What a poll of the lines answers: the lines, the dispatches, and the actions once nothing is pending. */
function LiveParts({ detail, csrf, currency }: { detail: OrderDetail; csrf: string; currency: string }) {
  return (
    <>
      <LinesSection detail={detail} csrf={csrf} currency={currency} />
      <DispatchesSection detail={detail} oob />
      {workPending(detail.order, detail.dispatches) ? null : <OrderActions detail={detail} csrf={csrf} oob />}
    </>
  );
}

export function LineCard({ line, logs, currency, actions }: { line: OrderDetail["lines"][number]; logs: OrderDetail["logs"]; currency: string; actions?: Child }) {
  return (
    <article class="line" aria-labelledby={`line-${line.id}`}>
      <header>
        <h3 id={`line-${line.id}`}>
          {line.name} <small class="muted">× {line.quantity}</small>
        </h3>
        <LineProgressBadge progress={lineProgress(line, shippedOf(line.shipments), { logs })} />
      </header>
      {actions}
      <dl class="facts">
        <dt>External ID</dt>
        <dd>{line.externalId}</dd>
        <dt>EAN / SKU</dt>
        <dd>
          {orDash(line.ean13)} / {orDash(line.reference)}
        </dd>
        <dt>Price</dt>
        <dd>
          {money(line.price, currency)} (purchase {money(line.purchasePrice, currency)})
        </dd>
        <InvoicedFact invoice={line.supplierInvoice} currency={currency} />
        <dt>Supplier</dt>
        <dd>{line.supplierName ?? <span class="muted">{line.currentStatus === "skipped" ? "none: skipped" : "not matched yet"}</span>}</dd>
        {line.splitFromLineId !== null ? (
          <>
            <dt>Split from</dt>
            <dd>
              <a href={`#line-${line.splitFromLineId}`}>line #{line.splitFromLineId}</a>
            </dd>
          </>
        ) : null}
        <dt>Confirmed quantity</dt>
        <dd>{line.confirmedQuantity !== null ? `${line.confirmedQuantity} of ${line.quantity}` : "—"}</dd>
        <dt>Shipments</dt>
        <dd>
          {line.shipments.length === 0 ? (
            "—"
          ) : (
            <ul class="plain">
              {line.shipments.map((s) => (
                <li>
                  <ShipmentText shipment={{ quantity: s.quantity, carrier: s.carrier, trackingNumber: s.tracking_number, trackingUrl: s.tracking_url, createdAt: s.created_at }} />
                </li>
              ))}
            </ul>
          )}
        </dd>
      </dl>
      <details class="timeline" open={logs.length <= 6}>
        <summary>Timeline ({count(logs.length, { one: "entry", many: "entries" })})</summary>
        <ol>
          {logs.map((log) => (
            <li>
              <LocalTime iso={log.createdAt} /> <LineStatusBadge status={log.status} /> {log.message}
            </li>
          ))}
        </ol>
      </details>
    </article>
  );
}
