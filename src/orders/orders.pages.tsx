// The console face of orders: the list with every filter of the API, and one order with its lines,
// timelines, shipments and dispatches. As thin as orders.routes.ts: read the request, call the
// same services, render. Each page costs what the API call it shows costs (docs/console.md, held by
// test/console/pages.budget.test.ts): the list is GET /api/v1/orders's read, with the account's
// suppliers for the supplier filter selected beside its count (no statement of their own); an order
// is GET /api/v1/orders/{reference}'s read with two more statements in the same round trip: its
// dispatches and the events sent to the shop about it.
import { z } from "@hono/zod-openapi";
import { Hono, type Context } from "hono";
import type { Child } from "hono/jsx";
import { attempt, done, formFields, text, type FormValues } from "../console/forms";
import { channelFor } from "../forwarding/channels";
import { completeByHand, retryFailedLines } from "../forwarding/forwarding.service";
import { COMPLETED_BY_HAND, leftToShip, offersShipmentByHand, recordShipmentByHand } from "../forwarding/shipments-by-hand";
import { idOrNotFound } from "../lib/params";
import { SHIPMENT_LABELS, ShipmentByHandForm, ShipmentRefused, type ShipmentFormState } from "./shipment-by-hand.pages";
import { matchNow, setBlocked } from "../routing/routing.service";
import type { LineStatus } from "../db/schema";
import { ATTEMPT_LOG_KEPT, LINE_STATUSES, type AttemptRecord } from "../db/schema";
import type { AppEnv } from "../env";
import type { ValidationErrors } from "../lib/errors";
import { groupBy } from "../lib/group";
import { pageParam } from "../lib/pagination";
import { field, validateForm } from "../lib/validation";
import { supplierChoices, supplierChoicesOf, supplierChoicesValue, type SupplierChoice } from "../suppliers/suppliers.service";
import { AttemptOutcomeBadge, Badge, DispatchStatusBadge, LineStatusBadge } from "../ui/badge";
import { LineProgressBadge, OrderProgressBadge } from "./progress-badge";
import { Checkbox, CheckboxGroup, CsrfField, Field, FormError, SelectField } from "../ui/field";
import { ShippingAddress } from "../ui/address";
import { money, orDash } from "../ui/format";
import { wantsFragment } from "../ui/htmx";
import { EmptyState } from "../ui/notice";
import { PostButton } from "../ui/actions";
import { Pagination } from "../ui/pagination";
import { DataTable } from "../ui/table";
import { LocalTime } from "../ui/time";
import { ShipmentText } from "../ui/tracking";
import { OrderEvents } from "../events/order-events.pages";
import { activeWebhookOf, orderEventsOf, orderEventsStatement, type OrderEvent } from "../events/order-events.service";
import { CancelSection, type CancelForm } from "./cancel-section";
import { InTheShop } from "../shops/write-backs.pages";
import { orderWriteBacksStatement, writeBacksOf, type WriteBack } from "../shops/write-back.service";
import { lineProgress, orderProgress, orderProgressWords, shippedOf, workPending, type OrderProgress } from "./progress";
import { LineActions } from "../routing/line-actions.pages";
import { BULK_LABELS, BulkCheckbox, BulkForm, BulkResults, type BulkFormState } from "./bulk.pages";
import { BulkBody } from "./bulk.schemas";
import { bulkAction } from "./bulk.service";
import { orderCsvStream } from "./orders.present";
import { ExportOrdersQuery, ListOrdersQuery, type ListOrdersFilters } from "./orders.schemas";
import { blockReasonOf, exportOrders, getOrder, listOrders, shippingAddressOf, type LineWithSupplier, type Order, type OrderDetail } from "./orders.service";
import { count } from "../lib/plural";

export const ordersPages = new Hono<AppEnv>();

// ---- The list -------------------------------------------------------------------

const LIST_KEYS = ["statuses", "supplier_ids"] as const;
const SINGLE_KEYS = ["q", "sort", "external_id", "source", "date_from", "date_to", "completed_since", "total_min", "total_max", "blocked", "shipping", "include_test", "per_page", "page"] as const;

const LABELS: Record<string, string> = {
  q: "Search",
  sort: "Sort",
  external_id: "External ID",
  source: "Source",
  date_from: "Created from",
  date_to: "Created up to",
  // The API's completed_since: when the order's last line was handed to its supplier (issue 31: "completed" is not said for that).
  completed_since: "Handed over since",
  statuses: "Line status",
  supplier_ids: "Supplier",
  total_min: "Total from",
  total_max: "Total up to",
  blocked: "Blocked",
  shipping: "Shipping",
  include_test: "Test orders",
  per_page: "Orders per page",
};

/** The URL's filters in the API's form: repeated checkboxes (statuses=a&statuses=b) become "a,b". */
function filtersOf(url: URL): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of LIST_KEYS) {
    const values = url.searchParams.getAll(key).flatMap((v) => v.split(",")).map((v) => v.trim()).filter(Boolean);
    if (values.length) out[key] = values.join(",");
  }
  for (const key of SINGLE_KEYS) {
    const value = url.searchParams.get(key);
    if (value !== null && value !== "") out[key] = value;
  }
  return out;
}

type ListView = {
  raw: Record<string, string>;
  query: URLSearchParams;
  errors: ValidationErrors;
  suppliers: SupplierChoice[];
  /** The account's: the currency of its orders that came without one. */
  currency: string;
  csrf: string;
  /** A refused bulk action, shown again above the table. */
  bulk?: BulkFormState;
  result?: { total: number; orders: Order[]; lines: LineWithSupplier[]; page: number; perPage: number };
};

ordersPages.get("/orders", (c) => renderOrders(c));

/** The list; after a refused bulk action, with its messages beside the bulk form's fields. */
async function renderOrders(c: Context<AppEnv>, bulk?: BulkFormState) {
  const db = c.get("db");
  const accountId = c.get("account").id;
  const url = new URL(c.req.url);
  const raw = filtersOf(url);
  const checked = validateForm(ListOrdersQuery, raw, LABELS);
  const view: ListView = { raw, query: url.searchParams, errors: checked.ok ? {} : checked.errors, suppliers: [], currency: c.get("account").currency, csrf: c.get("session").csrfToken, bulk };
  if (checked.ok) {
    const filters: ListOrdersFilters = checked.data;
    const page = { page: pageParam(filters.page), perPage: filters.per_page };
    const result = await listOrders(db, accountId, filters, page, supplierChoicesValue(accountId));
    view.suppliers = supplierChoicesOf(result.alongside);
    view.result = { ...result, ...page };
  } else {
    view.suppliers = await supplierChoices(db, accountId);
    c.status(422);
  }
  if (wantsFragment(c, "orders-view")) return c.html(<OrdersView {...view} />);
  return c.render(
    <>
      <h1>Orders</h1>
      <OrdersView {...view} />
    </>,
    { title: "Orders" },
  );
}

function Filters({ raw, errors, suppliers }: ListView) {
  const list = (key: string) => (raw[key] ?? "").split(",").filter(Boolean);
  const active = Object.keys(raw).filter((k) => k !== "page" && k !== "per_page" && k !== "q" && k !== "sort").length;
  const invalid = Object.keys(errors).length > 0;
  return (
    <form method="get" action="/console/orders" class="filters" hx-get="/console/orders" hx-target="#orders-view" hx-swap="outerHTML" hx-push-url="true">
      <div class="search-row">
        <Field name="q" label={LABELS.q} type="search" value={raw.q} errors={errors} hint="A reference, external ID, customer's name, e-mail or postcode, whole" />
        {raw.sort ? <input type="hidden" name="sort" value={raw.sort} /> : null}
        <button type="submit">Apply filters</button>
        <a href="/console/orders" role="button" class="secondary outline">
          Clear filters
        </a>
      </div>
      <details open={active > 0 || invalid}>
        <summary>More filters{active > 0 ? ` (${active} active)` : ""}</summary>
        <div class="filter-grid">
          <Field name="external_id" label="External ID contains" type="search" value={raw.external_id} errors={errors} />
          <Field name="date_from" label={LABELS.date_from} type="date" value={raw.date_from} errors={errors} />
          <Field name="date_to" label={LABELS.date_to} type="date" value={raw.date_to} errors={errors} />
          <Field name="completed_since" label={LABELS.completed_since} type="date" value={raw.completed_since} errors={errors} />
          <Field name="total_min" label={LABELS.total_min} type="number" step="0.01" min="0" inputmode="decimal" value={raw.total_min} errors={errors} />
          <Field name="total_max" label={LABELS.total_max} type="number" step="0.01" min="0" inputmode="decimal" value={raw.total_max} errors={errors} />
          <SelectField
            name="blocked"
            label={LABELS.blocked}
            value={raw.blocked}
            errors={errors}
            options={[
              { value: "", label: "Blocked or not" },
              { value: "true", label: "Blocked only" },
              { value: "false", label: "Not blocked" },
            ]}
          />
          <SelectField
            name="shipping"
            label={LABELS.shipping}
            value={raw.shipping}
            errors={errors}
            options={[
              { value: "", label: "Shipped or not" },
              { value: "not_shipped", label: "Not yet shipped" },
            ]}
          />
          <Field name="source" label={LABELS.source} value={raw.source} errors={errors} hint="Exactly, ignoring case" />
          <SelectField
            name="per_page"
            label={LABELS.per_page}
            value={raw.per_page ?? "50"}
            errors={errors}
            options={["25", "50", "100"].map((n) => ({ value: n, label: n }))}
          />
        </div>
        <div class="filter-grid">
          <CheckboxGroup
            name="statuses"
            label="Any line with status"
            errors={errors}
            checked={list("statuses")}
            options={LINE_STATUSES.map((s) => ({ value: s, label: <LineStatusBadge status={s} /> }))}
          />
          {suppliers.length > 0 ? (
            <CheckboxGroup
              name="supplier_ids"
              label="Any line matched to"
              errors={errors}
              scroll
              checked={list("supplier_ids")}
              options={suppliers.map((s) => ({ value: String(s.id), label: s.active ? s.name : `${s.name} (inactive)` }))}
            />
          ) : null}
          <fieldset class="checkbox-group">
            <legend>Test orders</legend>
            <Checkbox name="include_test" label="Include test orders" checked={raw.include_test === "true"} />
          </fieldset>
        </div>
      </details>
    </form>
  );
}

function statusCounts(lines: LineWithSupplier[]) {
  const counts = new Map<LineStatus, number>();
  for (const line of lines) counts.set(line.currentStatus, (counts.get(line.currentStatus) ?? 0) + 1);
  return LINE_STATUSES.filter((s) => counts.has(s)).map((s) => ({ status: s, count: counts.get(s)! }));
}

function OrdersView(view: ListView) {
  const filtered = Object.keys(view.raw).some((k) => k !== "page" && k !== "per_page" && k !== "sort");
  return (
    <div id="orders-view">
      <Filters {...view} />
      {view.result ? <OrdersTable view={view} result={view.result} filtered={filtered} /> : null}
    </div>
  );
}

/** The list's URL with these parameters changed (null: dropped), back on page 1. */
function listHref(query: URLSearchParams, path: string, changes: Record<string, string | null>): string {
  const params = new URLSearchParams(query);
  params.delete("page");
  for (const [k, v] of Object.entries(changes)) if (v === null) params.delete(k);
  else params.set(k, v);
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

const SORT_CAPTIONS: Record<string, string> = {
  "-created_at": "newest first",
  created_at: "oldest first",
  "-total": "largest total first",
  total: "smallest total first",
};

/** A sortable column's link and state: first click on created sorts newest first, on total largest first; again reverses it. */
function sortColumn(query: URLSearchParams, current: string, column: "created_at" | "total") {
  const sorted = current === `-${column}` ? "descending" : current === column ? "ascending" : "none";
  return { href: listHref(query, "/console/orders", { sort: sorted === "descending" ? column : `-${column}` }), sorted } as const;
}

function OrdersTable({ view, result, filtered }: { view: ListView; result: NonNullable<ListView["result"]>; filtered: boolean }) {
  if (result.total === 0) {
    const searched = view.query.get("q")?.trim();
    if (searched) {
      // Say it about the search, not about dates and totals (issue 31).
      const others = [...view.query.keys()].some((k) => !["q", "page", "per_page", "sort"].includes(k) && view.query.get(k) !== "");
      return (
        <EmptyState title={`No order matches “${searched}”${others ? " with these filters" : ""}`}>
          <p>
            The search finds an order by its reference, external ID or postcode, or by the start (3 characters or more) of its customer's
            name, company, city or e-mail, or of a product name on it. Check the spelling
            {others ? (
              <>
                , <a href={`/console/orders?${new URLSearchParams({ q: searched })}`}>search all orders</a>
              </>
            ) : null}{" "}
            or <a href="/console/orders">clear the search</a>.
          </p>
        </EmptyState>
      );
    }
    return filtered ? (
      <EmptyState title="No orders match these filters">
        <p>
          Widen the dates or totals, untick a status, or <a href="/console/orders">clear the filters</a>.
        </p>
      </EmptyState>
    ) : (
      <EmptyState title="No orders yet">
        <p>
          Orders arrive from your shop's plugin or through the API: <code>POST /api/v1/orders</code> with your account ID and API key (see{" "}
          <a href="/docs">the API documentation</a>). Test orders are hidden unless you tick “Include test orders”.
        </p>
      </EmptyState>
    );
  }
  const linesOf = groupBy(result.lines, (l) => l.orderId);
  type Row = { order: Order; lines: LineWithSupplier[] };
  const rows: Row[] = result.orders.map((order) => ({ order, lines: linesOf.get(order.id) ?? [] }));
  const sort = view.raw.sort && view.raw.sort in SORT_CAPTIONS ? view.raw.sort : "-created_at";
  return (
    <section aria-label="Results">
      <BulkForm query={bulkQuery(view.raw)} references={result.orders.map((o) => o.reference)} total={result.total} csrf={view.csrf} form={view.bulk} />
      <DataTable<Row>
        caption={`Orders, ${SORT_CAPTIONS[sort]}`}
        rows={rows}
        columns={[
          { header: "Select", cell: ({ order }) => <BulkCheckbox reference={order.reference} form={view.bulk} /> },
          { header: "Reference", cell: ({ order }) => <a href={`/console/orders/${order.reference}`}>{order.reference}</a> },
          { header: "External ID", cell: ({ order }) => order.externalId },
          { header: "Created", cell: ({ order }) => <LocalTime iso={order.createdAt} />, sort: sortColumn(view.query, sort, "created_at") },
          { header: "Ship to", cell: ({ order }) => `${order.firstName} ${order.lastName}, ${order.city} (${order.country})` },
          { header: "Total", numeric: true, cell: ({ order }) => money(order.total, order.currency ?? view.currency), sort: sortColumn(view.query, sort, "total") },
          { header: "State", cell: ({ lines }) => <OrderProgressBadge progress={orderProgress(lines, (l) => ({ channel: l.dispatchChannel }))} /> },
          {
            header: "Lines",
            cell: ({ lines }) => (
              <span class="badges">
                {statusCounts(lines).map((s) => (
                  <LineStatusBadge status={s.status} count={s.count} />
                ))}
              </span>
            ),
          },
          { header: "Suppliers", cell: ({ lines }) => orDash([...new Set(lines.map((l) => l.supplierName).filter(Boolean))].join(", ")) },
          {
            header: "Flags",
            cell: ({ order }) => (
              <span class="badges">
                {order.blocked ? <Badge tone="red">Blocked</Badge> : null}
                {order.test ? <Badge tone="grey">Test</Badge> : null}
              </span>
            ),
          },
        ]}
      />
      <Pagination path="/console/orders" query={view.query} noun="order" window={{ page: result.page, perPage: result.perPage, total: result.total, shown: result.orders.length }} />
      <p>
        <a href={listHref(view.query, "/console/orders/export", { per_page: null, sort: null })} download="orders.csv">
          Export CSV
        </a>{" "}
        <small>every order these filters match ({result.total}), newest first</small>
      </p>
    </section>
  );
}

// ---- Bulk actions on the list: POST /api/v1/orders/bulk's service -------------------

/** The list's filters, as the bulk form posts them back (its page is no filter). */
const bulkQuery = (raw: Record<string, string>) => new URLSearchParams(Object.entries(raw).filter(([k]) => k !== "page" && k !== "per_page")).toString();

ordersPages.post("/orders/bulk", async (c) => {
  const values = await formFields(c, ["references", "page_references"]);
  const scope = text(values, "scope") || "ticked";
  const refs = (scope === "page" ? values.page_references : values.references) as string[];
  const raw = filtersOf(new URL(c.req.url));
  delete raw.page;
  delete raw.per_page;
  const refused = (errors: ValidationErrors) => {
    c.status(422);
    return renderOrders(c, { values, errors });
  };
  if (scope !== "filter" && refs.length === 0) return refused({ scope: ["Tick at least one order, or choose every order on this page or matching the filters."] });
  const body = { action: text(values, "action"), reason: text(values, "reason"), ...(scope === "filter" ? { filter: raw } : { references: refs }) };
  const checked = validateForm(BulkBody, body, BULK_LABELS);
  // The orders chosen are the scope's: a message about them (too many, a filter) belongs beside it.
  const toScope = (errors: ValidationErrors) => {
    const { reason, ...rest } = errors;
    const scoped = Object.values(rest).flat();
    return { ...(reason ? { reason } : {}), ...(scoped.length ? { scope: scoped } : {}) };
  };
  if (!checked.ok) return refused(toScope(checked.errors));
  const input = checked.data;
  const target = input.references ? { references: input.references } : { filter: input.filter! };
  const result = await attempt(() => bulkAction(c.get("db"), c.get("pipeline"), c.get("account").id, input.action, target, input.reason), BULK_LABELS);
  if (!result.ok) return refused(toScope(result.errors));
  const query = bulkQuery(raw);
  return c.render(<BulkResults action={input.action} results={result.value} back={`/console/orders${query ? `?${query}` : ""}`} />, { title: "Bulk action" });
});

// The list as CSV (GET /api/v1/orders/export's stream), with the filters of the list it was linked from.
ordersPages.get("/orders/export", async (c) => {
  const url = new URL(c.req.url);
  const checked = validateForm(ExportOrdersQuery, filtersOf(url), LABELS);
  if (!checked.ok) return c.redirect(listHref(url.searchParams, "/console/orders", {}), 303);
  const stream = orderCsvStream(exportOrders(c.get("db"), c.get("account").id, checked.data), c.get("account").currency);
  return c.body(stream, 200, { "content-type": "text/csv; charset=utf-8", "content-disposition": 'attachment; filename="orders.csv"' });
});

// ---- One order ------------------------------------------------------------------

ordersPages.get("/orders/:reference", (c) => renderOrder(c));

/** The order's page; after a refused action, with the messages beside the action's fields and what was typed. */
export async function renderOrder(c: Context<AppEnv>, form?: ActionForm, cancelForm?: CancelForm, shipmentForm?: ShipmentFormState) {
  const reference = c.req.param("reference")!;
  const db = c.get("db");
  const accountId = c.get("account").id;
  const detail = await getOrder(db, accountId, reference, {
    dispatches: true,
    alongside: [orderEventsStatement(accountId, reference), orderWriteBacksStatement(accountId, reference)],
  });
  const events = { ...orderEventsOf(detail.alongside[0]), activeWebhook: activeWebhookOf(detail.alongside[0]) };
  const writeBacks = writeBacksOf(detail.alongside[1]);
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
      currency={currency}
    />,
    { title: `Order ${reference}` },
  );
}

// ---- Actions: the same services as POST /api/v1/orders/{reference}/block, unblock, match, retry, complete

type ActionForm = { action: "block" | "unblock" | "complete" | "other"; values: FormValues; errors: ValidationErrors; message?: string };

// The API's bodies (BlockRequest; the complete request, whose line_ids the form requires: a person chooses lines).
const ReasonForm = z.object({ reason: field.optionalText(500) });
const CompleteForm = z.object({ line_ids: z.array(field.int({ min: 1, max: 1e15 })).min(1).max(500) });
const ACTION_LABELS = { reason: "Reason", line_ids: "Lines" };

const orderPath = (c: Context<AppEnv>) => `/console/orders/${c.req.param("reference")}`;
const refused = (c: Context<AppEnv>, form: ActionForm) => {
  c.status(Object.keys(form.errors).length ? 422 : 409);
  return renderOrder(c, form);
};

for (const blocked of [true, false]) {
  const action = blocked ? "block" : "unblock";
  ordersPages.post(`/orders/:reference/${action}`, async (c) => {
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

ordersPages.post("/orders/:reference/match", async (c) => {
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

ordersPages.post("/orders/:reference/retry", async (c) => {
  const { retried } = await retryFailedLines(c.get("db"), c.get("pipeline"), c.get("account").id, c.req.param("reference"));
  return done(c, orderPath(c), {
    kind: retried ? "success" : "info",
    text: retried ? `${count(retried, "failed line")} ${retried === 1 ? "is" : "are"} being sent again.` : "No line has failed: nothing to retry.",
  });
});

// A reload of a page rendered by a refused shipment form: back to the order.
ordersPages.get("/orders/:reference/lines/:lineId/shipments", (c) => c.redirect(orderPath(c), 303));

ordersPages.post("/orders/:reference/lines/:lineId/shipments", async (c) => {
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

ordersPages.post("/orders/:reference/complete", async (c) => {
  const values = await formFields(c, ["line_ids"]);
  const checked = validateForm(CompleteForm, { line_ids: values.line_ids }, ACTION_LABELS);
  if (!checked.ok) return refused(c, { action: "complete", values, errors: checked.errors });
  const lineIds = checked.data.line_ids;
  const result = await attempt(() => completeByHand(c.get("db"), c.get("account").id, c.req.param("reference"), lineIds), ACTION_LABELS);
  if (!result.ok) return refused(c, { action: "complete", values, errors: result.errors, message: result.message });
  return done(c, orderPath(c), { kind: "success", text: `${count(lineIds.length, "line")} completed by hand.` });
});

function ReasonField({ action, form }: { action: "block" | "unblock"; form?: ActionForm }) {
  const own = form?.action === action;
  return (
    <Field
      id={`field-${action}-reason`}
      name="reason"
      label={ACTION_LABELS.reason}
      value={own ? text(form.values, "reason") : ""}
      errors={own ? form.errors : {}}
      hint={action === "block" ? "Optional: logged on every line, shown on the order" : "Optional: logged on every line"}
    />
  );
}

function OrderActions({ detail, csrf, form, oob }: { detail: OrderDetail; csrf: string; form?: ActionForm; oob?: boolean }) {
  const { order, lines } = detail;
  const base = `/console/orders/${order.reference}`;
  const pending = lines.some((l) => l.currentStatus === "pending");
  const failed = lines.filter((l) => l.currentStatus === "failed").length;
  const declined = lines.some((l) => l.currentStatus === "declined");
  const ruled = lines.filter((l) => l.currentStatus === "ruled");
  const chosen = form?.action === "complete" ? (form.values.line_ids as string[]) : [];
  return (
    <section aria-labelledby="actions-heading" class="order-actions" id="order-actions" {...(oob ? { "hx-swap-oob": "true" } : {})}>
      <h2 id="actions-heading">Actions</h2>
      {form?.message ? <FormError messages={[form.message]} /> : null}
      <div class="grid two">
        <form method="post" action={`${base}/${order.blocked ? "unblock" : "block"}`} novalidate class="stacked">
          <CsrfField token={csrf} />
          <ReasonField action={order.blocked ? "unblock" : "block"} form={form} />
          <button type="submit" class={order.blocked ? undefined : "secondary"}>
            {order.blocked ? "Unblock order" : "Block order"}
          </button>
        </form>
        <div>
          <p class="muted">
            {order.blocked
              ? "Matching and sending wait until the order is unblocked."
              : pending
                ? "Lines wait for a supplier: match them now with the current rules, catalogue and suppliers."
                : failed
                  ? "Sending failed for some lines: send them again once the supplier's problem is fixed."
                  : declined
                    ? "A supplier declined some lines: send each to another supplier, or re-route it now, under Lines."
                    : "Every line has been matched."}
          </p>
          <div class="page-actions">
            {!order.blocked && pending ? <PostButton action={`${base}/match`} csrf={csrf} label="Match now" /> : null}
            {failed ? <PostButton action={`${base}/retry`} csrf={csrf} label={`Retry ${count(failed, "failed line")}`} /> : null}
          </div>
        </div>
      </div>
      {ruled.length ? (
        <form method="post" action={`${base}/complete`} novalidate class="stacked">
          <CsrfField token={csrf} />
          <CheckboxGroup
            name="line_ids"
            id="field-complete-lines"
            label="Complete lines by hand (delivered outside the system, or a supplier on the manual channel)"
            errors={form?.action === "complete" ? form.errors : {}}
            checked={chosen}
            options={ruled.map((l) => ({ value: String(l.id), label: `${l.quantity} × ${l.name} (${l.supplierName ?? "no supplier"})` }))}
          />
          <button type="submit">Complete chosen lines</button>
        </form>
      ) : null}
    </section>
  );
}

/** `currency`: the order's own, or the account's when it came without one. */
function OrderPage({
  detail,
  events,
  writeBacks,
  csrf,
  form,
  cancelForm,
  shipmentForm,
  currency,
}: {
  detail: OrderDetail;
  events: { total: number; events: OrderEvent[]; activeWebhook: boolean };
  writeBacks: WriteBack[];
  csrf: string;
  form?: ActionForm;
  cancelForm?: CancelForm;
  shipmentForm?: ShipmentFormState;
  currency: string;
}) {
  const { order, logs } = detail;
  const blockReason = order.blocked ? blockReasonOf(logs) : null;
  const logsOf = groupBy(logs, (l) => l.orderLineId);
  return (
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/console/orders">Orders</a> / <span aria-current="page">{order.reference}</span>
      </nav>
      <hgroup>
        <h1>Order {order.reference}</h1>
        <p>
          External ID <strong>{order.externalId}</strong> from {order.source} · created <LocalTime iso={order.createdAt} /> ·{" "}
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

      <LinesSection detail={detail} csrf={csrf} currency={currency} shipmentForm={shipmentForm} />

      <CancelSection detail={detail} csrfToken={csrf} form={cancelForm} />

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
function OrderState({ progress, completedAt }: { progress: OrderProgress; completedAt: string | null }) {
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

function DispatchesSection({ detail, oob }: { detail: OrderDetail; oob?: boolean }) {
  return (
    <section aria-labelledby="dispatches-heading" id="order-dispatches" {...(oob ? { "hx-swap-oob": "true" } : {})}>
      <h2 id="dispatches-heading">Sent to suppliers</h2>
      <Dispatches detail={detail} />
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

function LineCard({ line, logs, currency, actions }: { line: LineWithSupplier; logs: OrderDetail["logs"]; currency: string; actions?: Child }) {
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

function Dispatches({ detail }: { detail: OrderDetail }) {
  if (detail.dispatches.length === 0) {
    return (
      <p class="muted">
        Nothing has been sent yet: lines are sent once they are matched to a supplier{detail.order.blocked ? " and the order is unblocked" : ""}.
      </p>
    );
  }
  const linesOf = groupBy(detail.lines, (l) => l.dispatchId);
  type D = OrderDetail["dispatches"][number];
  return (
    <>
      <DataTable<D>
        caption="Dispatches to suppliers, oldest first"
        rows={detail.dispatches}
        columns={[
          { header: "Supplier", cell: (d) => d.supplierName },
          { header: "Channel", cell: (d) => d.channel },
          { header: "Status", cell: (d) => <DispatchStatusBadge status={d.status} /> },
          { header: "Attempts", numeric: true, cell: (d) => attemptsText(d) },
          { header: "Lines", cell: (d) => orDash((linesOf.get(d.id) ?? []).map((l) => l.externalId).join(", ")) },
          { header: "Last answer", cell: (d) => (d.lastError ? <span class="response">{d.lastError}</span> : d.status === "sent" || d.status === "acknowledged" ? "Accepted" : "—") },
          { header: "Created", cell: (d) => <LocalTime iso={d.createdAt} /> },
          { header: "Sent", cell: (d) => <LocalTime iso={d.sentAt} /> },
          { header: "Acknowledged", cell: (d) => <LocalTime iso={d.acknowledgedAt} /> },
        ]}
      />
      {detail.dispatches.map((d) => (d.attemptLog?.length ? <AttemptLog dispatch={d} /> : null))}
    </>
  );
}

/**
 * How many attempts were made. The dispatch's count starts again at a retry by hand; its kept log
 * (each run numbered from 1) says how many came before: the last number of each earlier run.
 */
function attemptsText(d: OrderDetail["dispatches"][number]): string {
  const log = d.attemptLog ?? [];
  const runs: number[] = [];
  log.forEach((a, i) => (i > 0 && a.attempt > log[i - 1].attempt ? (runs[runs.length - 1] = a.attempt) : runs.push(a.attempt)));
  // The last run is the current one unless the count has started again since (a retry not yet tried).
  const current = runs.length && d.attempts > 0 && d.attempts >= runs[runs.length - 1] ? runs.pop()! : 0;
  const before = runs.reduce((sum, n) => sum + n, 0);
  const total = before + Math.max(current, d.attempts);
  return before > 0 ? `${total} (${d.attempts} since the retry by hand)` : String(total);
}

/**
 * Every kept attempt of a push dispatch, oldest first: when, what was sent where, the outcome, the
 * supplier's answer and how long it took. A dispatch without a log (sent before the log existed,
 * or on the pull or manual channel) is said by the table above: its attempt count and last answer.
 */
function AttemptLog({ dispatch: d }: { dispatch: OrderDetail["dispatches"][number] }) {
  const log = d.attemptLog ?? [];
  type A = AttemptRecord & { restarted: boolean };
  const rows: A[] = log.map((a, i) => ({ ...a, restarted: i > 0 && a.attempt <= log[i - 1].attempt }));
  const caption = `Attempts at sending to ${d.supplierName} (dispatch #${d.id}), oldest first`;
  return (
    <section class="attempt-log" aria-label={caption}>
      <h3>
        Attempts at sending to {d.supplierName} <small class="muted">dispatch #{d.id}</small>
      </h3>
      {log[0].attempt > 1 ? (
        <p class="muted">
          Earlier attempts are not kept: a dispatch keeps its last {ATTEMPT_LOG_KEPT}, its attempt count says how many there were.
        </p>
      ) : null}
      <DataTable<A>
        caption={caption}
        rows={rows}
        columns={[
          { header: "Attempt", numeric: true, cell: (a) => (a.restarted ? `${a.attempt} (retried by hand)` : String(a.attempt)) },
          { header: "When", cell: (a) => <LocalTime iso={a.at} /> },
          {
            header: "Sent",
            cell: (a) =>
              `${count(a.lines, "line")} ${channelFor(a.channel).sentAs}${a.to ? ` to ${a.to}` : `: no ${channelFor(a.channel).addressName}`}`,
          },
          { header: "Outcome", cell: (a) => <AttemptOutcomeBadge outcome={a.outcome} httpStatus={a.http_status} /> },
          { header: "Supplier's response", cell: (a) => (a.response ? <span class="response">{a.response}</span> : "—") },
          { header: "Took", numeric: true, cell: (a) => `${a.duration_ms} ms` },
        ]}
      />
    </section>
  );
}
