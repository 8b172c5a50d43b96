// The console's page of an archived order: read-only, from its document in R2 (docs/archive.md, "The
// console"). The same parts as the live page as far as the document holds them (lines with their
// timelines and shipments, the sends with their attempts, the write-backs into the shop, its ended
// returns) and the events sent about it (they stay in D1), with no action: an archived order cannot change any more.
import { Hono, type Context } from "hono";
import type { AppEnv } from "../env";
import { OrderEvents } from "../events/order-events.pages";
import { activeWebhookOf, orderEventsOf, orderEventsStatement } from "../events/order-events.service";
import { rawBatch } from "../db";
import { groupBy } from "../lib/group";
import { ApiError } from "../lib/errors";
import { DispatchesSection } from "../orders/order-dispatches";
import { LineCard, OrderState, ShippingSection } from "../orders/order.pages";
import { orderProgress } from "../orders/progress";
import { InTheShop } from "../shops/write-backs.pages";
import { shopOrderNameOf } from "../shops/platforms";
import { Badge } from "../ui/badge";
import { LocalTime } from "../ui/time";
import { ReturnCard } from "../returns/order-returns";
import { archivedDetail } from "./archived-detail";
import { archivedReturns } from "./archived-returns";
import { findArchived } from "./archive.service";

export const archivedOrderPages = new Hono<AppEnv>();

/**
 * The order page answers a live order (src/orders/order.pages.tsx); when it found none (its 404), the
 * archived order of that reference answers instead, read from R2: a live order's page costs nothing
 * more, an archived one's one stub read, its object and its events.
 */
archivedOrderPages.use("/orders/:reference", async (c, next) => {
  await next();
  const reference = c.req.param("reference");
  if (c.req.method !== "GET" || !/^\d{1,20}$/.test(reference) || !(c.error instanceof ApiError) || c.error.status !== 404) return;
  c.status(200);
  const page = await renderArchivedOrder(c, reference);
  if (!page) return;
  c.error = undefined;
  c.res = undefined;
  c.res = page;
});

/** The archived order's page, or null when the account has no archived order of that reference either. */
async function renderArchivedOrder(c: Context<AppEnv>, reference: string) {
  const db = c.get("db");
  const accountId = c.get("account").id;
  const doc = await findArchived(db, c.env.ARCHIVE, accountId, reference);
  if (!doc) return null;
  const [events] = await rawBatch(db, [orderEventsStatement(accountId, reference)]);
  const { detail, writeBacks } = archivedDetail(doc);
  const { order, logs } = detail;
  const currency = order.currency ?? c.get("account").currency;
  const logsOf = groupBy(logs, (l) => l.orderLineId);
  const inShop = shopOrderNameOf(order.custom ?? null);
  return c.render(
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/console/orders?archived=include">Orders</a> / <span aria-current="page">{order.reference}</span>
      </nav>
      <hgroup>
        <h1>Order {order.reference}</h1>
        <p>
          External ID <strong>{order.externalId}</strong>
          {inShop ? (
            <>
              {" "}
              ({inShop.label} order <strong>{inShop.name}</strong>)
            </>
          ) : null}{" "}
          from {order.source} · created <LocalTime iso={order.createdAt} /> · <OrderState progress={orderProgress(detail.lines, (l) => ({ logs: logsOf.get(l.id) ?? [] }))} completedAt={null} />
        </p>
      </hgroup>
      <p class="badges">
        <Badge tone="purple">Archived</Badge>
        {order.test ? <Badge tone="grey">Test order</Badge> : null}
      </p>
      <p class="callout" role="note" id="archived-note">
        <strong>Archived:</strong> this order was finished (every line shipped, cancelled or declined for good) and moved to the archive, last changed{" "}
        <LocalTime iso={order.updatedAt} />. It is shown read-only, as it was when it was archived: an archived order cannot change any more, so
        nothing here can be cancelled, retried or matched again.
      </p>

      <ShippingSection order={order} currency={currency} />

      <section aria-labelledby="lines-heading" id="order-lines">
        <h2 id="lines-heading">Lines</h2>
        {detail.lines.map((line) => (
          <LineCard line={line} logs={logsOf.get(line.id) ?? []} currency={currency} />
        ))}
      </section>

      <DispatchesSection detail={detail} />

      {doc.returns?.length ? (
        // Every one had ended when the order was archived: no move is offered, nothing more can be returned.
        <section aria-labelledby="returns-heading" id="returns">
          <h2 id="returns-heading">Returns</h2>
          {archivedReturns(doc).map((r) => (
            <ReturnCard reference={order.reference} ret={r} csrf="" />
          ))}
        </section>
      ) : null}

      <OrderEvents {...orderEventsOf(events)} activeWebhook={activeWebhookOf(events)} />

      <InTheShop writeBacks={writeBacks} csrf="" readOnly />
    </>,
    { title: `Order ${reference} (archived)` },
  );
}
