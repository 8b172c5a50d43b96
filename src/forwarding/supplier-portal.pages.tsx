// The supplier portal's face of forwarding: the supplier's open dispatches (what a shop sent it and
// waits on), from the same service as GET /api/v1/supplier/orders. Cards rather than a wide
// table, so it reads on a phone.
import { Hono } from "hono";
import type { AppEnv } from "../env";
import { pageParam } from "../lib/pagination";
import { DispatchStatusBadge } from "../ui/badge";
import { ShippingAddress } from "../ui/address";
import { money, orDash } from "../ui/format";
import { EmptyState } from "../ui/notice";
import { Pagination } from "../ui/pagination";
import { LocalTime } from "../ui/time";
import { listSupplierDispatches } from "./answers.service";
import { presentSupplierDispatch, type DispatchDocument } from "./document";

export const supplierPortalPages = new Hono<AppEnv>();

/** Open: waiting for this supplier to fetch (pull channel) or to be handled by hand (manual channel). */
const OPEN_STATUSES = ["awaiting_pickup", "manual"];
const PER_PAGE = 20;

type OpenDispatch = DispatchDocument & { status: string };

supplierPortalPages.get("/", async (c) => {
  const supplier = c.get("supplier");
  const page = { page: pageParam(c.req.query("page")), perPage: PER_PAGE };
  const { total, dispatches } = await listSupplierDispatches(c.get("db"), supplier, OPEN_STATUSES, page);
  const documents = dispatches.map((d) => presentSupplierDispatch(d, supplier));
  const url = new URL(c.req.url);
  return c.render(
    <>
      <hgroup>
        <h1>Open dispatches</h1>
        <p>Orders {supplier.name} has been sent and not yet handled, oldest first.</p>
      </hgroup>
      {total === 0 ? (
        <EmptyState title="Nothing waits for you">
          <p>New orders for {supplier.name} appear here as soon as a shop sends them. Come back later, or fetch them through the API (GET /api/v1/supplier/orders).</p>
        </EmptyState>
      ) : (
        <>
          {(documents as OpenDispatch[]).map((doc) => (
            <DispatchCard doc={doc} />
          ))}
          <Pagination path="/supplier" query={url.searchParams} noun="dispatches" window={{ page: page.page, perPage: PER_PAGE, total, shown: documents.length }} />
        </>
      )}
    </>,
    { title: "Open dispatches" },
  );
});

function DispatchCard({ doc }: { doc: OpenDispatch }) {
  return (
    <article class="dispatch" aria-labelledby={`dispatch-${doc.dispatch_id}`}>
      <header>
        <h2 id={`dispatch-${doc.dispatch_id}`}>
          Order {doc.order.reference} <small class="muted">dispatch #{doc.dispatch_id}</small>
        </h2>
        <DispatchStatusBadge status={doc.status as never} />
      </header>
      <p class="muted">
        Sent <LocalTime iso={doc.created_at} /> · shop order {doc.order.external_id}
        {doc.test ? " · test order" : ""}
      </p>
      <div class="grid two">
        <section aria-label="Ship to">
          <h3>Ship to</h3>
          <ShippingAddress address={doc.order.shipping_address} withEmail={false} />
        </section>
        <section aria-label="Delivery">
          <h3>Delivery</h3>
          <dl class="facts">
            <dt>Method</dt>
            <dd>{orDash([doc.order.shipping.name, doc.order.shipping.description].filter(Boolean).join(" · "))}</dd>
            <dt>Delivery date</dt>
            <dd>{orDash(doc.order.shipping.delivery_date)}</dd>
            <dt>Note</dt>
            <dd>{orDash(doc.order.shipping.note)}</dd>
          </dl>
        </section>
      </div>
      <h3>Lines</h3>
      <ul class="dispatch-lines">
        {doc.lines.map((line) => (
          <li>
            <strong>{line.quantity} ×</strong> {line.name}
            <br />
            <small class="muted">
              SKU {orDash(line.reference)} · EAN {orDash(line.ean13)} · purchase price {money(line.purchase_price)} · line #{line.id}
            </small>
          </li>
        ))}
      </ul>
    </article>
  );
}
