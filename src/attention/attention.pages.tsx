// The shop console's landing page: what waits for a person, with counts, newest first, each item
// linking to where it is dealt with.
import { Hono } from "hono";
import type { Child } from "hono/jsx";
import type { AppEnv } from "../env";
import { attempt, done, formFields, text } from "../console/forms";
import { Badge, LineStatusBadge, ReturnStatusBadge } from "../ui/badge";
import { CsrfField } from "../ui/field";
import { LocalTime } from "../ui/time";
import { LineActions } from "../routing/line-actions.pages";
import { needsAttention, PENDING_AFTER_MS, PICKUP_OVERDUE_MS, type Cause, type Group, type LineItem, type RawAnswer } from "./attention.service";
import { setAside } from "./set-aside";
import { count, type Noun } from "../lib/plural";
import { money } from "../ui/format";

export const attentionPages = new Hono<AppEnv>();

attentionPages.get("/", async (c) => {
  const a = await needsAttention(c.get("db"), c.get("account").id);
  const csrf = c.get("session").csrfToken;
  const account = c.get("account");
  const total =
    a.blocked.count + a.pending.count + a.failed.count + a.answered.count + a.overduePickups.count + a.overdue.count + a.cancellations.count + a.webhooks.count + a.shops.count + a.imports.count + a.invoices.count + a.returns.count;
  return c.render(
    <>
      <hgroup>
        <h1>Needs attention</h1>
        <p>{total === 0 ? "Nothing waits for you." : `${count(total, "thing")} ${total === 1 ? "waits" : "wait"} for you, newest first.`}</p>
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
      <Section id="blocked" csrf={csrf} title="Blocked orders" group={a.blocked} all="/console/orders?blocked=true" explain="Nothing of a blocked order is matched or sent until it is unblocked.">
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
        csrf={csrf}
        title="Lines that found no supplier"
        group={a.pending}
        all="/console/orders?statuses=pending"
        explain={`Still pending ${PENDING_AFTER_MS / 60_000} minutes after they came in. A routing rule, a catalogue product or a supplier name on the line would match them.`}
      >
        {(l) => <LineEntry line={l} csrf={csrf} />}
      </Section>
      <Section id="failed" title="Failed sends" group={a.failed} all="/console/orders?statuses=failed" explain="Sending to a supplier failed: one item per supplier and cause, with the lines it affects.">
        {(f) => (
          <CauseEntry cause={f} noun="line" csrf={csrf} answerOf="supplier's" all={f.supplierId && f.count > f.items.length ? `/console/orders?statuses=failed&supplier_ids=${f.supplierId}` : undefined}>
            {(l) => <LineEntry line={l} csrf={csrf} />}
          </CauseEntry>
        )}
      </Section>
      <Section
        id="answered"
        csrf={csrf}
        title="Declined or partly confirmed lines"
        group={a.answered}
        all="/console/orders?statuses=declined,partially_completed"
        explain="The supplier could not deliver all of these: route them to another supplier or tell the customer."
      >
        {(l) => <LineEntry line={l} csrf={csrf} />}
      </Section>
      <Section
        id="pickups"
        csrf={csrf}
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
        csrf={csrf}
        title="Suppliers past a deadline"
        group={a.overdue}
        explain="The supplier did not answer in time after the send, or has not shipped what it accepted. Contact it, or cancel the lines."
      >
        {(l) => <LineEntry line={l} note={l.deadline === "shipping" ? "not shipped in time" : "not answered in time"} />}
      </Section>
      <Section
        id="cancellations"
        csrf={csrf}
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
      <Section id="webhooks" title="Failing webhook deliveries" group={a.webhooks} explain="Events your endpoint did not accept, one item per endpoint and cause. Fix the endpoint, then redeliver them from the webhook's page.">
        {(d) => (
          <CauseEntry cause={d} noun={{ one: "delivery", many: "deliveries" }} csrf={csrf} answerOf="endpoint's" all={`/console/webhooks/${d.subscriptionId}`}>
            {(i) => (
              <>
                <a href={`/console/webhooks/${d.subscriptionId}`}>Delivery #{i.deliveryId}</a> of {i.eventType}
                {i.reference ? (
                  <>
                    {" "}
                    for <a href={`/console/orders/${i.reference}`}>order {i.reference}</a>
                  </>
                ) : null}{" "}
                · <Badge tone={i.status === "failed" ? "red" : "amber"}>{i.status === "failed" ? "Failed" : "Retrying"}</Badge> · <LocalTime iso={i.since} />
              </>
            )}
          </CauseEntry>
        )}
      </Section>
      <Section id="shops" title="Failing writes into the shop" group={a.shops} explain="Shipments, notes or completions the shop did not take, one item per connection and cause. Fix the cause, then try them again from the order's page.">
        {(w) => (
          <CauseEntry cause={w} noun="write" csrf={csrf} answerOf="shop's">
            {(i) => (
              <>
                <a href={`/console/orders/${i.reference}#in-the-shop`}>Order {i.reference}</a> ({i.externalId}) · {i.kind} to {w.connectionName} ·{" "}
                <Badge tone={i.status === "failed" ? "red" : "amber"}>{i.status === "failed" ? "Failed" : "Retrying"}</Badge> · <LocalTime iso={i.since} />
              </>
            )}
          </CauseEntry>
        )}
      </Section>
      <Section id="imports" csrf={csrf} title="Feed imports with problems" group={a.imports} explain="The latest import of these feeds failed or rejected rows: the feed's page lists each rejected row with its reason.">
        {(i) => (
          <>
            <a href={`/console/catalogue/feeds/${i.feedId}`}>Feed “{i.feedName}”</a> · import #{i.importId} · <LocalTime iso={i.startedAt} /> ·{" "}
            {i.status === "failed" ? <Badge tone="red">Failed</Badge> : <Badge tone="amber">{`${count(i.rejected, "row")} rejected`}</Badge>}
            <br />
            <small>{i.error ?? ""}</small>
          </>
        )}
      </Section>
      <Section
        id="invoices"
        csrf={csrf}
        title="Invoiced at another price"
        group={a.invoices}
        explain="The supplier's invoice (an EDI 810) asks another unit price than the purchase price we expected, or is in another currency than the order: check it with the supplier or correct the purchase price."
      >
        {(i) => {
          const currency = i.currency ?? account.currency;
          const more = i.unitPrice > (i.expectedUnitPrice ?? 0);
          const other = i.invoiceCurrency !== null && i.invoiceCurrency !== currency;
          return (
            <>
              <a href={`/console/orders/${i.reference}#line-${i.lineId}`}>Order {i.reference}</a> · {i.lineName} · <LocalTime iso={i.createdAt} />
              <br />
              {other ? (
                <small>
                  {i.supplierName} invoiced {money(i.unitPrice, i.invoiceCurrency!)} per unit (invoice {i.invoiceNumber}) in {i.invoiceCurrency}; the order is in {currency}: not compared,
                  amounts are never converted{i.expectedUnitPrice === null ? "" : ` (we expected ${money(i.expectedUnitPrice, currency)})`}.
                </small>
              ) : (
                <small>
                  {i.supplierName} invoiced {money(i.unitPrice, currency)} per unit (invoice {i.invoiceNumber}); we expected {money(i.expectedUnitPrice, currency)}:{" "}
                  {money(Math.abs(i.unitPrice - (i.expectedUnitPrice ?? 0)), currency)} {more ? "more" : "less"} per unit.
                </small>
              )}
            </>
          );
        }}
      </Section>
      <Section
        id="returns"
        csrf={csrf}
        title="Returns waiting on the supplier"
        group={a.returns}
        explain="The supplier has not answered within the hours its return settings give it (authorise or decline a request, credit or close what it received): the longest waiting first. Remind it, or cancel the return."
      >
        {(r) => (
          <>
            <a href={`/console/orders/${r.reference}#return-${r.returnId}`}>Return #{r.returnId}</a> of order {r.reference} · {r.supplierName} · <ReturnStatusBadge status={r.status} /> · waiting since{" "}
            <LocalTime iso={r.since} />
            <br />
            <small>
              {r.status === "received" ? "Received, neither credited nor closed" : "Neither authorised nor declined"} after more than {count(r.answerWithinHours, "hour")}.
            </small>
          </>
        )}
      </Section>
    </>,
    { title: "Needs attention" },
  );
});

/**
 * One cause of failures: what it means in words, the answer behind it one click away (escaped, as
 * it came), how many it affects, the newest of them, and setting it aside.
 */
function CauseEntry<T>(props: { cause: Cause<T>; noun: Noun; answerOf: string; csrf: string; all?: string; children: (item: T) => Child }) {
  const { cause } = props;
  const more = cause.count - cause.items.length;
  return (
    <>
      <p class="cause-words">{cause.words}</p>
      <small>
        {count(cause.count, props.noun)} affected{cause.orders !== cause.count ? `, in ${count(cause.orders, "order")}` : ""}; the newest <LocalTime iso={cause.latest} />
        {more > 0 ? `; the ${cause.items.length} newest:` : ":"}
      </small>
      <ul>
        {cause.items.map((item) => (
          <li>{props.children(item)}</li>
        ))}
      </ul>
      {more > 0 && props.all ? (
        <p>
          <a href={props.all}>All {count(cause.count, props.noun)}</a>
        </p>
      ) : null}
      {cause.raw ? <RawAnswerDetails raw={cause.raw} whose={props.answerOf} /> : null}
      <SetAside itemKey={cause.key} csrf={props.csrf} />
    </>
  );
}

/** The answer behind a cause, as it came (JSX escapes it), behind one click. */
function RawAnswerDetails({ raw, whose }: { raw: RawAnswer; whose: string }) {
  const head = [raw.call, raw.status !== null ? `HTTP ${raw.status}` : "no HTTP answer"].filter(Boolean).join(" → ");
  return (
    <details class="raw-answer">
      <summary>Show the {whose} answer</summary>
      <pre>
        <code>{`${head}\n${raw.answer ?? "(empty)"}`}</code>
      </pre>
    </details>
  );
}

/** Dismiss (until the cause recurs) or snooze an item: one small form, posted and redirected back. */
function SetAside({ itemKey, csrf }: { itemKey: string; csrf: string }) {
  return (
    <form method="post" action="/console/attention/set-aside" class="set-aside">
      <CsrfField token={csrf} />
      <input type="hidden" name="item" value={itemKey} />
      <button type="submit" name="choice" value="dismiss" class="secondary outline">
        Dismiss
      </button>{" "}
      <button type="submit" name="choice" value="snooze_day" class="secondary outline">
        Snooze 1 day
      </button>{" "}
      <button type="submit" name="choice" value="snooze_week" class="secondary outline">
        Snooze 1 week
      </button>
    </form>
  );
}

attentionPages.post("/attention/set-aside", async (c) => {
  const form = await formFields(c);
  const result = await attempt(() => setAside(c.get("db"), c.get("account").id, text(form, "item"), text(form, "choice")));
  if (!result.ok) return done(c, "/console", { kind: "error", text: Object.values(result.errors).flat()[0] ?? result.message ?? "Not set aside." });
  const until = result.value.snoozedUntil;
  return done(c, "/console", { kind: "success", text: until ? `Snoozed until ${until.slice(0, 16).replace("T", " ")} UTC.` : "Dismissed: it comes back if it happens again." });
});

/** A line waiting for a person; with `csrf`, the actions that move it on (a stuck line's). */
function LineEntry({ line, note, csrf }: { line: Omit<LineItem, "key">; note?: string; csrf?: string }) {
  return (
    <>
      <a href={`/console/orders/${line.reference}`}>Order {line.reference}</a> · {line.lineName} <LineStatusBadge status={line.status} />
      {note ? ` · ${note}` : ""} · <LocalTime iso={line.since} />
      <br />
      <small>{line.reason ?? ""}</small>
      {csrf ? (
        <>
          <br />
          <LineActions reference={line.reference} line={{ id: line.lineId, currentStatus: line.status, matchedSupplierId: line.matchedSupplierId, quantity: line.quantity, confirmedQuantity: line.confirmedQuantity }} csrf={csrf} back="attention" />
        </>
      ) : null}
    </>
  );
}

function Section<T extends { key: string }>(props: { id: string; title: string; group: Group<T>; all?: string; explain: string; children: (item: T) => Child; csrf?: string }) {
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
          <li>
            {props.children(item)}
            {props.csrf ? <SetAside itemKey={item.key} csrf={props.csrf} /> : null}
          </li>
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
