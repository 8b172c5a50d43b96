// The supplier portal's face of forwarding, read side: the dispatches that wait for the supplier,
// its history, and the open dispatches as CSV, from the same service (and the same CSV) as
// GET /api/v1/supplier/orders. Cards rather than wide tables, so it reads on a phone. One
// dispatch and the supplier's answers to it: supplier-dispatch.pages.tsx.
import type { Child } from "hono/jsx";
import { Hono } from "hono";
import type { OrderLine, Shipment } from "../db/schema";
import type { AppEnv } from "../env";
import { pageParam } from "../lib/pagination";
import { shippingAddressOf } from "../orders/orders.service";
import { ShippingAddress } from "../ui/address";
import { lineProgress, shippedOf } from "../orders/progress";
import { LineProgressBadge } from "../orders/progress-badge";
import { DispatchStatusBadge, LineStatusBadge } from "../ui/badge";
import { money, orDash } from "../ui/format";
import { EmptyState } from "../ui/notice";
import { Pagination } from "../ui/pagination";
import { LocalTime } from "../ui/time";
import { ShipmentText } from "../ui/tracking";
import { listSupplierDispatches } from "./supplier-dispatches.service";
import { type SupplierDispatch } from "./document";
import { csvRows, presentSupplierDispatch, toCsv } from "./document";
import { count } from "../lib/plural";

export const supplierPortalPages = new Hono<AppEnv>();

const PER_PAGE = 20;
/** A CSV file holds at most this many dispatches: the API's largest page. */
export const CSV_PER_PAGE = 100;

export const dispatchPath = (id: number) => `/supplier/dispatches/${id}`;

supplierPortalPages.get("/", async (c) => {
  const supplier = c.get("supplier");
  const page = { page: pageParam(c.req.query("page")), perPage: PER_PAGE };
  const { total, dispatches } = await listSupplierDispatches(c.get("db"), supplier, "open", page);
  return c.render(
    <>
      <hgroup>
        <h1>Open dispatches</h1>
        <p>Orders {supplier.name} has been sent that wait for you, oldest first. Open one to answer it.</p>
      </hgroup>
      {total === 0 ? (
        <EmptyState title="Nothing waits for you">
          <p>
            New orders for {supplier.name} appear here as soon as a shop sends them. Come back later, look up what you handled in{" "}
            <a href="/supplier/history">History</a>, or fetch orders through the API (GET /api/v1/supplier/orders).
          </p>
        </EmptyState>
      ) : (
        <>
          <CsvDownloads total={total} />
          {dispatches.map((d) => (
            <DispatchCard data={d} currency={c.get("session").currency!} linked />
          ))}
          <Pagination path="/supplier" query={new URL(c.req.url).searchParams} noun={{ one: "dispatch", many: "dispatches" }} window={{ page: page.page, perPage: PER_PAGE, total, shown: dispatches.length }} />
        </>
      )}
    </>,
    { title: "Open dispatches" },
  );
});

/** One link per file of at most CSV_PER_PAGE dispatches (almost always just one). */
function CsvDownloads({ total }: { total: number }) {
  const files = Math.ceil(total / CSV_PER_PAGE);
  const href = (n: number) => (n === 1 ? "/supplier/dispatches.csv" : `/supplier/dispatches.csv?page=${n}`);
  return (
    <p class="actions">
      {Array.from({ length: files }, (_, i) => (
        <a href={href(i + 1)} role="button" class="secondary outline" download>
          {files === 1 ? "Download CSV" : `Download CSV: dispatches ${i * CSV_PER_PAGE + 1}–${Math.min(total, (i + 1) * CSV_PER_PAGE)}`}
        </a>
      ))}
    </p>
  );
}

// The same rows and columns as GET /api/v1/supplier/orders?format=csv (document.ts), of the open dispatches.
supplierPortalPages.get("/dispatches.csv", async (c) => {
  const supplier = c.get("supplier");
  const page = { page: pageParam(c.req.query("page")), perPage: CSV_PER_PAGE };
  const { dispatches } = await listSupplierDispatches(c.get("db"), supplier, "open", page);
  const csv = toCsv(dispatches.map((d) => presentSupplierDispatch(d, supplier)).flatMap(csvRows));
  const name = `open-dispatches${page.page > 1 ? `-${page.page}` : ""}.csv`;
  return c.body(csv, 200, { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${name}"` });
});

supplierPortalPages.get("/history", async (c) => {
  const supplier = c.get("supplier");
  const page = { page: pageParam(c.req.query("page")), perPage: PER_PAGE };
  const { total, dispatches } = await listSupplierDispatches(c.get("db"), supplier, "history", page, "newest");
  return c.render(
    <>
      <hgroup>
        <h1>History</h1>
        <p>Every other dispatch {supplier.name} has been sent: acknowledged, answered, failed or still on its way; newest first.</p>
      </hgroup>
      {total === 0 ? (
        <EmptyState title="No history yet">
          <p>
            Orders move here once you have acknowledged or answered them. See what waits for you in <a href="/supplier">Open dispatches</a>.
          </p>
        </EmptyState>
      ) : (
        <>
          <ul class="history plain">
            {dispatches.map((d) => (
              <HistoryItem data={d} />
            ))}
          </ul>
          <Pagination path="/supplier/history" query={new URL(c.req.url).searchParams} noun={{ one: "dispatch", many: "dispatches" }} window={{ page: page.page, perPage: PER_PAGE, total, shown: dispatches.length }} />
        </>
      )}
    </>,
    { title: "History" },
  );
});

function HistoryItem({ data: { dispatch, order, lines } }: { data: SupplierDispatch }) {
  const units = lines.reduce((sum, l) => sum + l.quantity, 0);
  return (
    <li>
      <article class="history-item">
        <header>
          <h2>
            <a href={dispatchPath(dispatch.id)}>Order {order.reference}</a> <small class="muted">dispatch #{dispatch.id}</small>
          </h2>
          <DispatchStatusBadge status={dispatch.status} />
        </header>
        <p class="muted">
          Sent <LocalTime iso={dispatch.createdAt} /> · {count(lines.length, "line")}, {count(units, "item")} · shop order{" "}
          {order.externalId}
        </p>
        <p class="badges">
          {lines.map((l) => (
            <LineStatusBadge status={l.currentStatus} />
          ))}
        </p>
      </article>
    </li>
  );
}

/**
 * A dispatch as the supplier reads it: the order, ship-to, delivery and each line with its status,
 * confirmed quantity and shipments. `linked`: the heading links to the dispatch's own page.
 * `lineActions`: what the dispatch page adds under each line (its answer forms).
 */
/** `currency`: the account's, for an order that came without its own. */
export function DispatchCard(props: { data: SupplierDispatch; currency: string; shipments?: Shipment[]; linked?: boolean; lineActions?: (line: OrderLine) => Child }) {
  const { dispatch, order, lines } = props.data;
  const headingId = `dispatch-${dispatch.id}`;
  return (
    <article class="dispatch" aria-labelledby={headingId}>
      <header>
        <h2 id={headingId}>
          {props.linked ? <a href={dispatchPath(dispatch.id)}>Order {order.reference}</a> : `Order ${order.reference}`}{" "}
          <small class="muted">dispatch #{dispatch.id}</small>
        </h2>
        <DispatchStatusBadge status={dispatch.status} />
      </header>
      <p class="muted">
        Sent <LocalTime iso={dispatch.createdAt} /> · shop order {order.externalId}
        {order.test ? " · test order" : ""}
      </p>
      <div class="grid two">
        <section aria-label="Ship to">
          <h3>Ship to</h3>
          <ShippingAddress address={shippingAddressOf(order)} withEmail={false} />
        </section>
        <section aria-label="Delivery">
          <h3>Delivery</h3>
          <dl class="facts">
            <dt>Method</dt>
            <dd>{orDash([order.shippingName, order.shippingDescription].filter(Boolean).join(" · "))}</dd>
            <dt>Delivery date</dt>
            <dd>{orDash(order.shippingDeliveryDate)}</dd>
            <dt>Note</dt>
            <dd>{orDash(order.shippingNote)}</dd>
          </dl>
        </section>
      </div>
      <h3>Lines</h3>
      <ul class="dispatch-lines">
        {lines.map((line) => (
          <li id={`line-${line.id}`}>
            <strong>{line.quantity} ×</strong> {line.name}{" "}
            {props.shipments ? (
              <LineProgressBadge progress={lineProgress(line, shippedOf(props.shipments.filter((s) => s.orderLineId === line.id)), { channel: dispatch.channel })} />
            ) : (
              <LineStatusBadge status={line.currentStatus} />
            )}
            <br />
            <small class="muted">
              SKU {orDash(line.reference)} · EAN {orDash(line.ean13)} · purchase price {money(line.purchasePrice, order.currency ?? props.currency)} · line #{line.id}
            </small>
            {line.confirmedQuantity !== null ? <p class="line-fact">Confirmed: {line.confirmedQuantity} of {line.quantity}</p> : null}
            {props.shipments ? <LineShipments shipments={props.shipments.filter((s) => s.orderLineId === line.id)} /> : null}
            {props.lineActions?.(line)}
          </li>
        ))}
      </ul>
    </article>
  );
}

function LineShipments({ shipments }: { shipments: Shipment[] }) {
  if (shipments.length === 0) return null;
  return (
    <ul class="plain line-fact" aria-label="Shipments">
      {shipments.map((s) => (
        <li>
          Shipped <ShipmentText shipment={s} />
        </li>
      ))}
    </ul>
  );
}
