// The console's orders list: every filter of the API, the table, its bulk actions (POST /api/v1/orders/bulk's
// service) and its CSV export. As thin as orders.routes.ts: read the request, call the same services,
// render. The list costs GET /api/v1/orders's read, with the account's suppliers for the supplier filter
// selected beside its count (no statement of their own; docs/console.md, held by test/console/pages.budget.test.ts).
import { Hono, type Context } from "hono";
import { attempt, formFields, text } from "../console/forms";
import type { LineStatus } from "../db/schema";
import { LINE_STATUSES } from "../db/schema";
import type { AppEnv } from "../env";
import type { ValidationErrors } from "../lib/errors";
import { groupBy } from "../lib/group";
import { pageParam } from "../lib/pagination";
import { listWithArchived } from "../archive/list";
import { validateForm } from "../lib/validation";
import { supplierChoices, supplierChoicesOf, supplierChoicesValue, type SupplierChoice } from "../suppliers/suppliers.service";
import { Badge, LineStatusBadge } from "../ui/badge";
import { OrderProgressBadge } from "./progress-badge";
import { Checkbox, CheckboxGroup, Field, SelectField } from "../ui/field";
import { money, orDash } from "../ui/format";
import { wantsFragment } from "../ui/htmx";
import { EmptyState } from "../ui/notice";
import { Pagination } from "../ui/pagination";
import { DataTable } from "../ui/table";
import { LocalTime } from "../ui/time";
import { orderProgress } from "./progress";
import { BULK_LABELS, BulkCheckbox, BulkForm, BulkResults, type BulkFormState } from "./bulk.pages";
import { BulkBody } from "./bulk.schemas";
import { bulkAction } from "./bulk.service";
import { orderCsvStream } from "./orders.present";
import { ExportOrdersQuery, ListOrdersQuery, type ListOrdersFilters } from "./orders.schemas";
import { listOrders, type LineWithSupplier, type Order } from "./orders.service";
import { exportWithArchive } from "../archive/export";

export const orderListPages = new Hono<AppEnv>();

// ---- The list -------------------------------------------------------------------

const LIST_KEYS = ["statuses", "supplier_ids"] as const;
const SINGLE_KEYS = ["archived", "q", "sort", "external_id", "source", "date_from", "date_to", "completed_since", "total_min", "total_max", "blocked", "shipping", "include_test", "per_page", "page"] as const;

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
  archived: "Archived orders",
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
  result?: { total: number; liveTotal: number; orders: Order[]; lines: LineWithSupplier[]; page: number; perPage: number; archived: Set<number> };
};

orderListPages.get("/orders", (c) => renderOrders(c));

/** The list; after a refused bulk action, with its messages beside the bulk form's fields. */
async function renderOrders(c: Context<AppEnv>, bulk?: BulkFormState) {
  const db = c.get("db");
  const accountId = c.get("account").id;
  const url = new URL(c.req.url);
  const raw = filtersOf(url);
  const checked = validateForm(ListOrdersQuery, raw, LABELS);
  const view: ListView = { raw, query: url.searchParams, errors: checked.ok ? {} : checked.errors, suppliers: [], currency: c.get("account").currency, csrf: c.get("session").csrfToken, bulk };
  if (checked.ok) {
    const filters = checked.data;
    const page = { page: pageParam(filters.page), perPage: filters.per_page };
    if (filters.archived) {
      const result = await listWithArchived(db, c.env.ARCHIVE, accountId, { ...filters, archived: filters.archived }, page);
      view.suppliers = await supplierChoices(db, accountId);
      view.result = { ...result, ...page };
    } else {
      const result = await listOrders(db, accountId, filters, page, supplierChoicesValue(accountId));
      view.suppliers = supplierChoicesOf(result.alongside);
      view.result = { ...result, ...page, liveTotal: result.total, archived: new Set() };
    }
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
            name="archived"
            label={LABELS.archived}
            value={raw.archived}
            errors={errors}
            hint="Finished orders move to the archive after the account's archive days; they are read-only"
            options={[
              { value: "", label: "Live orders only" },
              { value: "include", label: "Live and archived" },
              { value: "only", label: "Archived only" },
            ]}
          />
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
  type Row = { order: Order; lines: LineWithSupplier[]; archived: boolean };
  const rows: Row[] = result.orders.map((order) => ({ order, lines: linesOf.get(order.id) ?? [], archived: result.archived.has(order.id) }));
  // Archived orders take no action: bulk actions are for the live ones on the page.
  const live = result.orders.filter((o) => !result.archived.has(o.id));
  const sort = view.raw.sort && view.raw.sort in SORT_CAPTIONS ? view.raw.sort : "-created_at";
  return (
    <section aria-label="Results">
      {/* Bulk actions act on live orders: with archived ones only, there is nothing to act on. */}
      {view.raw.archived === "only" ? null : <BulkForm query={bulkQuery(view.raw)} references={live.map((o) => o.reference)} total={result.liveTotal} csrf={view.csrf} form={view.bulk} />}
      <DataTable<Row>
        caption={`Orders, ${SORT_CAPTIONS[sort]}`}
        rows={rows}
        columns={[
          { header: "Select", cell: ({ order, archived }) => (archived ? null : <BulkCheckbox reference={order.reference} form={view.bulk} />) },
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
            cell: ({ order, archived }) => (
              <span class="badges">
                {archived ? <Badge tone="purple">Archived</Badge> : null}
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
const bulkQuery = (raw: Record<string, string>) => new URLSearchParams(Object.entries(raw).filter(([k]) => k !== "page" && k !== "per_page" && k !== "archived")).toString();

orderListPages.post("/orders/bulk", async (c) => {
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
orderListPages.get("/orders/export", async (c) => {
  const url = new URL(c.req.url);
  const checked = validateForm(ExportOrdersQuery, filtersOf(url), LABELS);
  if (!checked.ok) return c.redirect(listHref(url.searchParams, "/console/orders", {}), 303);
  const stream = orderCsvStream(exportWithArchive(c.get("db"), c.env.ARCHIVE, c.get("account").id, checked.data), c.get("account").currency);
  return c.body(stream, 200, { "content-type": "text/csv; charset=utf-8", "content-disposition": 'attachment; filename="orders.csv"' });
});
