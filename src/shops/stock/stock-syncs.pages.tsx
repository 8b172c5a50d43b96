// The console face of the stock sync (docs/shops-stock.md, "In the console"): on a connection's page
// its last runs and a "Sync stock now" button; a sync's own page with its progress, asked for again
// every second while it runs, and a page of its products' outcomes. The same service functions as
// stock-syncs.routes.ts.
import { Hono, type Context } from "hono";
import { attempt, done, formFields, text } from "../../console/forms";
import type { ShopConnectionRow, StockSync, StockSyncItem, StockSyncOutcome, StockSyncStatus } from "../../db/schema";
import type { AppEnv } from "../../env";
import { idOrNotFound } from "../../lib/params";
import { pageParam } from "../../lib/pagination";
import { PostButton } from "../../ui/actions";
import { Badge, type Tone } from "../../ui/badge";
import { wantsFragment } from "../../ui/htmx";
import { EmptyState } from "../../ui/notice";
import { pageHref, Pagination } from "../../ui/pagination";
import { DataTable } from "../../ui/table";
import { LocalTime } from "../../ui/time";
import { getConnection } from "../connections.service";
import { priceText } from "./compute";
import { confirmStockSync, discardStockSync, getStockSyncWithItems, listStockSyncs, requestStockSync, syncSettingsOf } from "./stock-sync.service";

export const stockSyncPages = new Hono<AppEnv>();

const PATH = "/console/shop-connections";
/** Runs listed on a connection's page. */
export const RECENT_SYNCS = 10;
/** Products per page of a sync's page. */
const PER_PAGE = 50;
const LIVE_ID = "stock-sync-live";

const STATUSES: Record<StockSyncStatus, { label: string; tone: Tone }> = {
  queued: { label: "Queued", tone: "blue" },
  running: { label: "Running", tone: "blue" },
  needs_confirmation: { label: "Needs confirmation", tone: "amber" },
  succeeded: { label: "Succeeded", tone: "green" },
  failed: { label: "Failed", tone: "red" },
};
const OUTCOMES: Record<StockSyncOutcome, { label: string; tone: Tone }> = {
  pending: { label: "Pending", tone: "amber" },
  planned: { label: "Planned", tone: "blue" },
  sending: { label: "Sending", tone: "blue" },
  updated: { label: "Updated", tone: "green" },
  unchanged: { label: "Unchanged", tone: "grey" },
  unknown: { label: "Unknown", tone: "orange" },
  skipped: { label: "Skipped", tone: "orange" },
  failed: { label: "Failed", tone: "red" },
};
const TRIGGERS: Record<StockSync["trigger"], string> = { import: "After a feed import", manual: "On demand", settings: "After a settings change" };

/** "12.50 → 5.95": the shop's value before (— when not known) and the one written; only the old one when nothing is written. */
function OldNew(props: { old: number | null; now: number | null; show: (v: number) => string; leftAsIs: string }) {
  const old = props.old === null ? "—" : props.show(props.old);
  if (props.now === null) return <span class="muted">{props.leftAsIs}</span>;
  return (
    <span class="old-new">
      {old} → {props.show(props.now)}
    </span>
  );
}

const running = (s: StockSync) => s.status === "queued" || s.status === "running";
const progressText = (s: StockSync) => `${s.done} of ${s.total}`;
const syncPath = (s: StockSync) => `${PATH}/${s.connectionId}/stock-syncs/${s.id}`;

const StatusBadge = ({ sync }: { sync: StockSync }) => <Badge tone={STATUSES[sync.status].tone}>{STATUSES[sync.status].label}</Badge>;

/** The connection's last runs, for its page (the service's list, first page). */
export const recentStockSyncs = (c: Context<AppEnv>, connectionId: number) =>
  listStockSyncs(c.get("db"), c.get("account").id, connectionId, { page: 1, perPage: RECENT_SYNCS }).then((r) => r.rows);

/** Why the connection writes no stock, in words; null when it does. */
function notSyncing(row: ShopConnectionRow): string | null {
  if (!syncSettingsOf(row).stock.enabled) return "Stock sync is not enabled on this connection: turn it on under Stock and price sync below.";
  if (!row.active) return "The connection is paused: resume it to sync stock.";
  return null;
}

/** On a connection's page: the last runs and the button that starts one. */
export function StockSyncSection({ row, syncs, csrf }: { row: ShopConnectionRow; syncs: StockSync[]; csrf: string }) {
  const why = notSyncing(row);
  return (
    <section aria-labelledby="stock-sync-heading">
      <h2 id="stock-sync-heading">Stock sync</h2>
      {why ? (
        <p class="muted">{why}</p>
      ) : (
        <div class="page-actions">
          <PostButton action={`${PATH}/${row.id}/stock-syncs`} csrf={csrf} label="Sync stock now" />
          <PostButton action={`${PATH}/${row.id}/stock-syncs`} csrf={csrf} fields={{ full: "true" }} variant="secondary" label="Full sync now" />
        </div>
      )}
      {syncs.length === 0 ? (
        <p class="muted">No stock sync has run yet.</p>
      ) : (
        <DataTable<StockSync>
          caption={`The last stock syncs, newest first (up to ${RECENT_SYNCS})`}
          rows={syncs}
          columns={[
            { header: "Sync", cell: (s) => <a href={syncPath(s)}>#{s.id}</a> },
            { header: "Status", cell: (s) => <StatusBadge sync={s} /> },
            { header: "Trigger", cell: (s) => TRIGGERS[s.trigger] },
            { header: "Started", cell: (s) => <LocalTime iso={s.startedAt} /> },
            { header: "Finished", cell: (s) => <LocalTime iso={s.finishedAt} /> },
            { header: "Done", cell: progressText, numeric: true },
            { header: "Updated", cell: (s) => s.updated, numeric: true },
            { header: "Unchanged", cell: (s) => s.unchanged, numeric: true },
            { header: "Unknown", cell: (s) => s.unknown, numeric: true },
            { header: "Skipped", cell: (s) => s.skipped, numeric: true },
            { header: "Failed", cell: (s) => s.failed, numeric: true },
          ]}
        />
      )}
    </section>
  );
}

// ---- Starting one ----------------------------------------------------------------------------

stockSyncPages.post("/shop-connections/:id/stock-syncs", async (c) => {
  const id = idOrNotFound(c.req.param("id")!, "Shop connection");
  const full = text(await formFields(c), "full") === "true";
  const result = await attempt(() => requestStockSync(c.get("db"), c.get("pipeline"), c.get("account").id, id, { full }));
  if (!result.ok) return done(c, `${PATH}/${id}`, { kind: "error", text: result.message ?? "The stock sync was not started." });
  return done(c, syncPath(result.value), { kind: "success", text: full ? "Full stock sync queued: every product is written; its progress shows here." : "Stock sync queued: its progress shows here." });
});

for (const [action, run, said] of [
  ["confirm", confirmStockSync, "Confirmed: the sync writes what it planned."],
  ["discard", discardStockSync, "Discarded: nothing was written; the next sync covers these products again."],
] as const) {
  stockSyncPages.post(`/shop-connections/:id/stock-syncs/:syncId/${action}`, async (c) => {
    const id = idOrNotFound(c.req.param("id")!, "Shop connection");
    const result = await attempt(() => run(c.get("db"), c.get("pipeline"), c.get("account").id, id, c.req.param("syncId")!));
    const to = `${PATH}/${id}/stock-syncs/${c.req.param("syncId")}`;
    return result.ok ? done(c, to, { kind: "success", text: said }) : done(c, to, { kind: "error", text: result.message ?? "Nothing was done." });
  });
}

// ---- One sync --------------------------------------------------------------------------------

stockSyncPages.get("/shop-connections/:id/stock-syncs/:syncId", async (c) => {
  const id = idOrNotFound(c.req.param("id")!, "Shop connection");
  const page = pageParam(c.req.query("page"));
  const { sync, items, totalItems } = await getStockSyncWithItems(c.get("db"), c.get("account").id, id, c.req.param("syncId")!, { page, perPage: PER_PAGE });
  const live = (
    <LiveSync sync={sync} items={items} csrf={c.get("session").csrfToken} window={{ page, perPage: PER_PAGE, total: totalItems, shown: items.length }} query={new URL(c.req.url).searchParams} />
  );
  if (wantsFragment(c, LIVE_ID)) return c.html(live);
  const row = await getConnection(c.get("db"), c.get("account").id, id);
  return c.render(
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href={PATH}>Shop connections</a> / <a href={`${PATH}/${id}`}>{row.name}</a> / <span aria-current="page">Stock sync #{sync.id}</span>
      </nav>
      <h1>Stock sync #{sync.id}</h1>
      {live}
    </>,
    { title: `Stock sync #${sync.id} of ${row.name}` },
  );
});

/**
 * The sync's status, progress, counts and a page of its products. While it is queued or running the
 * section asks for itself again every second (the same GET, htmx naming it as target); the answer
 * once it has ended carries no trigger, so the polling stops.
 */
function LiveSync(props: { sync: StockSync; items: StockSyncItem[]; csrf: string; window: { page: number; perPage: number; total: number; shown: number }; query: URLSearchParams }) {
  const { sync, items } = props;
  const path = syncPath(sync);
  const self = pageHref(path, props.query, props.window.page);
  const poll = running(sync) ? { "hx-get": self, "hx-trigger": "every 1s", "hx-target": "this", "hx-swap": "outerHTML" } : {};
  return (
    <section id={LIVE_ID} aria-labelledby="stock-sync-progress-heading" {...poll}>
      <h2 id="stock-sync-progress-heading">Progress</h2>
      <dl class="facts">
        <dt>Status</dt>
        <dd>
          <StatusBadge sync={sync} />
          {sync.error ? <> {sync.error}</> : null}
        </dd>
        <dt>Trigger</dt>
        <dd>
          {TRIGGERS[sync.trigger]}
          {sync.full ? " · every product" : " · the products that changed"}
        </dd>
        <dt>Started</dt>
        <dd>
          <LocalTime iso={sync.startedAt} />
        </dd>
        <dt>Finished</dt>
        <dd>
          <LocalTime iso={sync.finishedAt} />
        </dd>
        {sync.retryAt && running(sync) ? (
          <>
            <dt>Waiting until</dt>
            <dd>
              <LocalTime iso={sync.retryAt} /> (the shop asked us to wait, or a failed request is tried again)
            </dd>
          </>
        ) : null}
      </dl>
      {sync.status === "needs_confirmation" ? (
        <article class="needs-confirmation" aria-labelledby="needs-confirmation-heading">
          <p>
            <strong id="needs-confirmation-heading">Needs confirmation.</strong> {sync.guardReason} The products below show what it would write, old → new.
          </p>
          <div class="page-actions">
            <PostButton action={`${path}/confirm`} csrf={props.csrf} label="Confirm and write" />
            <PostButton action={`${path}/discard`} csrf={props.csrf} variant="secondary" label="Discard" ariaLabel="Discard this sync: write nothing" />
          </div>
        </article>
      ) : null}
      {sync.confirmedAt ? (
        <p class="muted">
          Confirmed <LocalTime iso={sync.confirmedAt} />: {sync.guardReason}
        </p>
      ) : null}
      <p>
        <label for="stock-sync-progress">Products done</label>{" "}
        {sync.total > 0 || !running(sync) ? (
          <progress id="stock-sync-progress" value={sync.done} max={Math.max(sync.total, 1)}>
            {progressText(sync)}
          </progress>
        ) : (
          <progress id="stock-sync-progress">not started</progress>
        )}{" "}
        <output class="stock-sync-done">{sync.total > 0 || !running(sync) ? progressText(sync) : "not started yet"}</output>
      </p>
      <p class="stock-sync-counts">
        Updated {sync.updated} · Unchanged {sync.unchanged} · Unknown {sync.unknown} · Skipped {sync.skipped} · Failed {sync.failed}
      </p>
      <h3>Products</h3>
      {items.length === 0 ? (
        <EmptyState title="No products yet">
          <p>{running(sync) ? "The products appear here as the sync plans them." : "This sync had no product to write."}</p>
        </EmptyState>
      ) : (
        <>
          <DataTable<StockSyncItem>
            caption="The sync's products by key"
            rows={items}
            columns={[
              { header: "Product", cell: (i) => i.matchKey },
              { header: "Shop product ID", cell: (i) => i.shopId ?? <span class="muted">—</span> },
              { header: "Outcome", cell: (i) => <Badge tone={OUTCOMES[i.outcome].tone}>{OUTCOMES[i.outcome].label}</Badge> },
              { header: "Stock", cell: (i) => <OldNew old={i.oldQuantity} now={i.quantity} show={String} leftAsIs="left as it is" />, numeric: true },
              { header: "Price", cell: (i) => <OldNew old={i.oldPrice} now={i.price} show={priceText} leftAsIs="not synced" />, numeric: true },
              { header: "Reason", cell: (i) => i.reason ?? "" },
            ]}
          />
          <Pagination path={path} query={props.query} noun="product" window={props.window} />
        </>
      )}
    </section>
  );
}
