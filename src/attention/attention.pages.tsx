// The shop console's landing page: what waits for a person, with counts, newest first, each item
// linking to where it is dealt with.
import { Hono } from "hono";
import type { Child } from "hono/jsx";
import type { AppEnv } from "../env";
import { Badge, LineStatusBadge } from "../ui/badge";
import { LocalTime } from "../ui/time";
import { LineActions } from "../routing/line-actions.pages";
import { needsAttention, PENDING_AFTER_MS, PICKUP_OVERDUE_MS, type Group, type LineItem } from "./attention.service";
import { count } from "../lib/plural";

export const attentionPages = new Hono<AppEnv>();

attentionPages.get("/", async (c) => {
  const a = await needsAttention(c.get("db"), c.get("account").id);
  const csrf = c.get("session").csrfToken;
  const total =
    a.blocked.count + a.pending.count + a.failed.count + a.answered.count + a.overduePickups.count + a.overdue.count + a.cancellations.count + a.webhooks.count + a.shops.count + a.imports.count;
  return c.render(
    <>
      <hgroup>
        <h1>Needs attention</h1>
        <p>{total === 0 ? "Nothing waits for you." : `${total} ${total === 1 ? "thing waits" : "things wait"} for you, newest first.`}</p>
      </hgroup>
      {total === 0 ? (
        <article class="empty-state">
          <h2>All clear</h2>
          <p>
            No blocked orders, unmatched or failed lines, supplier refusals, failing webhooks, failing writes into the shop or feed problems. New orders show up under{" "}
            <a href="/console/orders">Orders</a>.
          </p>
        </article>
      ) : null}
      <Section id="blocked" title="Blocked orders" group={a.blocked} all="/console/orders?blocked=true" explain="Nothing of a blocked order is matched or sent until it is unblocked.">
        {(o) => (
          <>
            <a href={`/console/orders/${o.reference}`}>Order {o.reference}</a> ({o.externalId}) · <LocalTime iso={o.createdAt} />
            <br />
            <small>{o.reason ?? "No reason logged."}</small>
          </>
        )}
      </Section>
      <Section
        id="pending"
        title="Lines that found no supplier"
        group={a.pending}
        all="/console/orders?statuses=pending"
        explain={`Still pending ${PENDING_AFTER_MS / 60_000} minutes after they came in. A routing rule, a catalogue product or a supplier name on the line would match them.`}
      >
        {(l) => <LineEntry line={l} csrf={csrf} />}
      </Section>
      <Section id="failed" title="Failed sends" group={a.failed} all="/console/orders?statuses=failed" explain="Sending to the supplier failed; the reason is the supplier's answer or the error.">
        {(l) => <LineEntry line={l} csrf={csrf} />}
      </Section>
      <Section
        id="answered"
        title="Declined or partly confirmed lines"
        group={a.answered}
        all="/console/orders?statuses=declined,partially_completed"
        explain="The supplier could not deliver all of these: route them to another supplier or tell the customer."
      >
        {(l) => <LineEntry line={l} csrf={csrf} />}
      </Section>
      <Section
        id="pickups"
        title="Orders suppliers have not fetched"
        group={a.overduePickups}
        explain={`Waiting for the supplier to fetch them for more than ${PICKUP_OVERDUE_MS / 3_600_000} hours.`}
      >
        {(d) => (
          <>
            <a href={`/console/orders/${d.reference}`}>Order {d.reference}</a> · {d.supplierName} · sent <LocalTime iso={d.createdAt} />
          </>
        )}
      </Section>
      <Section
        id="overdue"
        title="Suppliers past a deadline"
        group={a.overdue}
        explain="The supplier did not answer in time after the send, or has not shipped what it accepted. Contact it, or cancel the lines."
      >
        {(l) => <LineEntry line={l} note={l.deadline === "shipping" ? "not shipped in time" : "not answered in time"} />}
      </Section>
      <Section
        id="cancellations"
        title="Cancellations to carry to a supplier"
        group={a.cancellations}
        explain="A supplier handled by hand must be told (or its request could not be sent). Record its answer on the order's page."
      >
        {(c) => (
          <>
            <a href={`/console/orders/${c.reference}`}>Order {c.reference}</a> · {c.supplierName} ·{" "}
            {c.purpose === "withdraw" ? "withdrawal" : "cancellation"} of {count(c.openLines, "line")} ·{" "}
            {c.status === "failed" ? <Badge tone="red">Could not be sent</Badge> : <Badge tone="amber">Tell the supplier</Badge>} · <LocalTime iso={c.createdAt} />
            {c.lastError ? (
              <>
                <br />
                <small>{c.lastError}</small>
              </>
            ) : null}
          </>
        )}
      </Section>
      <Section id="webhooks" title="Failing webhook deliveries" group={a.webhooks} explain="Events your endpoint did not accept. Fix the endpoint, then redeliver them from the webhook's page.">
        {(d) => (
          <>
            <a href={`/console/webhooks/${d.subscriptionId}`}>Delivery #{d.deliveryId}</a> of {d.eventType} to <code>{d.url}</code> · <Badge tone={d.status === "failed" ? "red" : "amber"}>{d.status === "failed" ? "Failed" : "Retrying"}</Badge> ·{" "}
            <LocalTime iso={d.updatedAt} />
            <br />
            <small>{d.lastError ?? ""}</small>
          </>
        )}
      </Section>
      <Section id="shops" title="Failing writes into the shop" group={a.shops} explain="Shipments, notes or completions the shop did not take. Fix the cause (the connection's credentials, the shop), then try them again from the order's page.">
        {(w) => (
          <>
            <a href={`/console/orders/${w.reference}#in-the-shop`}>Order {w.reference}</a> · {w.kind} to {w.connectionName} ·{" "}
            <Badge tone={w.status === "failed" ? "red" : "amber"}>{w.status === "failed" ? "Failed" : "Retrying"}</Badge> · <LocalTime iso={w.updatedAt} />
            <br />
            <small>{w.lastError ?? ""}</small>
          </>
        )}
      </Section>
      <Section id="imports" title="Feed imports with problems" group={a.imports} explain="The latest import of these feeds failed or rejected rows: the feed's page lists each rejected row with its reason.">
        {(i) => (
          <>
            <a href={`/console/catalogue/feeds/${i.feedId}`}>Feed “{i.feedName}”</a> · import #{i.importId} · <LocalTime iso={i.startedAt} /> ·{" "}
            {i.status === "failed" ? <Badge tone="red">Failed</Badge> : <Badge tone="amber">{`${count(i.rejected, "row")} rejected`}</Badge>}
            <br />
            <small>{i.error ?? ""}</small>
          </>
        )}
      </Section>
    </>,
    { title: "Needs attention" },
  );
});

/** A line waiting for a person; with `csrf`, the actions that move it on (a stuck line's). */
function LineEntry({ line, note, csrf }: { line: LineItem; note?: string; csrf?: string }) {
  return (
    <>
      <a href={`/console/orders/${line.reference}`}>Order {line.reference}</a> · {line.lineName} <LineStatusBadge status={line.status} />
      {note ? ` · ${note}` : ""} · <LocalTime iso={line.since} />
      <br />
      <small>{line.reason ?? ""}</small>
      {csrf ? (
        <>
          <br />
          <LineActions reference={line.reference} line={{ id: line.lineId, currentStatus: line.status, matchedSupplierId: line.matchedSupplierId }} csrf={csrf} back="attention" />
        </>
      ) : null}
    </>
  );
}

function Section<T>(props: { id: string; title: string; group: Group<T>; all?: string; explain: string; children: (item: T) => Child }) {
  if (props.group.count === 0) return null;
  const more = props.group.count - props.group.items.length;
  return (
    <section class="attention" aria-labelledby={`${props.id}-heading`}>
      <h2 id={`${props.id}-heading`}>
        {props.title} <span class="count">{props.group.count}</span>
      </h2>
      <p class="muted">{props.explain}</p>
      <ul>
        {props.group.items.map((item) => (
          <li>{props.children(item)}</li>
        ))}
      </ul>
      {props.all ? (
        <p>
          <a href={props.all}>{more > 0 ? `All ${props.group.count}` : "Show them in Orders"}</a>
        </p>
      ) : null}
    </section>
  );
}
