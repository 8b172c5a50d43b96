// The Returns page: the account's returns by state (tabs with their counts; the open ones first)
// and supplier, newest first, paginated like the other lists, each linking to its order, where it is
// followed and moved on (./order-returns.tsx).
import { Hono } from "hono";
import type { AppEnv } from "../env";
import { RETURN_STATUSES, type ReturnStatus } from "../db/schema";
import { pageParam } from "../lib/pagination";
import { count } from "../lib/plural";
import { ReturnStatusBadge, returnStatusLabel } from "../ui/badge";
import { FormError, SelectField } from "../ui/field";
import { money, orDash } from "../ui/format";
import { EmptyState } from "../ui/notice";
import { Pagination } from "../ui/pagination";
import { DataTable } from "../ui/table";
import { LocalTime } from "../ui/time";
import { listReturns, OPEN_RETURN_STATUSES, returnsOverview, type ReturnView } from "./returns.service";

export const returnListPages = new Hono<AppEnv>();

const PATH = "/console/returns";
const PER_PAGE = 25;
const TABS: { label: string; status: ReturnStatus[] | null }[] = [
  { label: "Open", status: OPEN_RETURN_STATUSES },
  ...RETURN_STATUSES.map((s) => ({ label: returnStatusLabel(s), status: [s] })),
  { label: "All", status: null },
];

returnListPages.get("/returns", async (c) => {
  const url = new URL(c.req.url);
  const db = c.get("db");
  const accountId = c.get("account").id;
  const asked = (url.searchParams.get("status") ?? "").split(",").filter(Boolean);
  // No status asked: the open ones, where the work is. "all": every state.
  const bad = asked.filter((s) => s !== "all" && !(RETURN_STATUSES as readonly string[]).includes(s));
  if (bad.length) {
    c.status(422);
    return c.render(
      <>
        <h1>Returns</h1>
        <FormError messages={[`The selected status '${bad[0]}' is invalid. Allowed: ${RETURN_STATUSES.join(", ")}, all.`]} />
        <p>
          <a href={PATH}>The open returns</a>
        </p>
      </>,
      { title: "Returns" },
    );
  }
  const status = asked.length === 0 ? OPEN_RETURN_STATUSES : asked.includes("all") ? null : (asked as ReturnStatus[]);
  const supplierRaw = url.searchParams.get("supplier_id") ?? "";
  const supplierId = /^\d{1,15}$/.test(supplierRaw) ? Number(supplierRaw) : undefined;
  const page = pageParam(url.searchParams.get("page") ?? undefined);
  const [overview, list] = await Promise.all([returnsOverview(db, accountId), listReturns(db, accountId, { status: status ?? undefined, supplierId }, { page, perPage: PER_PAGE })]);
  const statusParam = (s: ReturnStatus[] | null) => (s === null ? "all" : s.join(","));
  const current = statusParam(status);
  const tabHref = (s: ReturnStatus[] | null) => {
    const q = new URLSearchParams();
    if (s !== OPEN_RETURN_STATUSES) q.set("status", statusParam(s));
    if (supplierId) q.set("supplier_id", String(supplierId));
    return q.size ? `${PATH}?${q}` : PATH;
  };
  const countOf = (s: ReturnStatus[] | null) => (s ?? [...RETURN_STATUSES]).reduce((n: number, x: ReturnStatus) => n + (overview.counts[x] ?? 0), 0);
  return c.render(
    <>
      <hgroup>
        <h1>Returns</h1>
        <p>What customers send back, one return per supplier: each links to its order, where it is followed and answered.</p>
      </hgroup>
      <nav aria-label="Returns by state" class="tabs">
        <ul>
          {TABS.map((t) => (
            <li>
              <a href={tabHref(t.status)} aria-current={statusParam(t.status) === current ? "page" : undefined}>
                {t.label} <span class="count">{countOf(t.status)}</span>
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <form method="get" action={PATH} class="filters">
        {status !== OPEN_RETURN_STATUSES ? <input type="hidden" name="status" value={current} /> : null}
        <SelectField name="supplier_id" label="Supplier" value={supplierId ? String(supplierId) : ""} options={[{ value: "", label: "Every supplier" }, ...overview.suppliers.map((s) => ({ value: String(s.id), label: s.name }))]} />
        <button type="submit">Show</button>
      </form>
      {list.total === 0 ? (
        <EmptyState title="No returns here">
          <p>Returns are requested on an order's page (Return items…) or through the API.</p>
        </EmptyState>
      ) : (
        <>
          <DataTable<ReturnView>
            caption="Returns, newest first"
            rows={list.data}
            columns={[
              { header: "Return", cell: (v) => <a href={`/console/orders/${v.order.reference}#return-${v.ret.id}`}>#{v.ret.id}</a> },
              { header: "Order", cell: (v) => <a href={`/console/orders/${v.order.reference}`}>{v.order.reference}</a> },
              { header: "Supplier", cell: (v) => v.supplier.name },
              { header: "State", cell: (v) => <ReturnStatusBadge status={v.ret.status} /> },
              { header: "Items", numeric: true, cell: (v) => count(v.lines.reduce((n, l) => n + l.quantity, 0), "item") },
              { header: "RMA", cell: (v) => orDash(v.ret.rma) },
              { header: "Credit", numeric: true, cell: (v) => (v.ret.creditAmount === null ? "—" : money(v.ret.creditAmount, v.ret.creditCurrency ?? "")) },
              { header: "Requested", cell: (v) => <LocalTime iso={v.ret.createdAt} /> },
            ]}
          />
          <Pagination path={PATH} query={url.searchParams} noun="return" window={{ page, perPage: PER_PAGE, total: list.total, shown: list.data.length }} />
        </>
      )}
    </>,
    { title: "Returns" },
  );
});
