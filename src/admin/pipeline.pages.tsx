// The operator's pipeline pages: the backlog as the durable marks in D1 show it, the sweepers' last
// runs, the parked orders and dead letters with replay (the same services as
// /admin/v1/parked-orders and /admin/v1/dead-letters), and the failing webhook deliveries of every
// account. Thin: the domain is src/processing (health.service.ts, recovery.service.ts, cron.ts).
import { Hono, type Context } from "hono";
import { attempt, done } from "../console/forms";
import { DEAD_LETTER_STATUSES, type DeadLetter, type SweeperRun } from "../db/schema";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { pageParam } from "../lib/pagination";
import { idOrNotFound } from "../lib/params";
import { lastSweeperRuns, SWEEPERS, type SweeperName } from "../pipeline/cron";
import {
  addBacklogs,
  listFailingDeliveries,
  listFailingWriteBacks,
  pipelineBacklog,
  type Backlog,
  type FailingDelivery,
  type FailingWriteBack,
  type Stage,
} from "../pipeline/health.service";
import { listDeadLetters, listParkedOrders, replayDeadLetter, replayParkedOrder, type ParkedOrder } from "../pipeline/recovery.service";
import { byIdDescending, byParkedAt } from "../pipeline/recovery.present";
import { everyShard, onShardHolding, pageEverywhere } from "../shards/accounts";
import { Badge } from "../ui/badge";
import { PostButton } from "../ui/actions";
import { EmptyState } from "../ui/notice";
import { Pagination } from "../ui/pagination";
import { DataTable } from "../ui/table";
import { LocalTime } from "../ui/time";

export const pipelinePages = new Hono<AppEnv>();

const PER_PAGE = 50;
/** Runs shown on the pipeline page. */
const RUNS_SHOWN = 20;
/** The cron fires every minute: a last run older than this means it does not. */
const CRON_SILENT_MS = 5 * 60 * 1000;

const accountLink = (id: number | null) => (id === null ? <span class="muted">—</span> : <a href={`/operator/accounts/${id}`}>{id}</a>);

// ---- Health -------------------------------------------------------------------------

pipelinePages.get("/pipeline", async (c) => {
  // Every shard's backlog, added up; the sweepers' runs of every shard, newest first.
  const shards = everyShard(c.env);
  const [backlogs, runLists] = await Promise.all([Promise.all(shards.map(({ db }) => pipelineBacklog(db))), Promise.all(shards.map(({ db }) => lastSweeperRuns(db, RUNS_SHOWN)))]);
  const backlog = addBacklogs(backlogs);
  const runs = runLists
    .flatMap((list, i) => list.map((run) => ({ ...run, shard: shards[i].shard })))
    .sort((a, b) => b.scheduledAt.localeCompare(a.scheduledAt) || a.shard - b.shard)
    .slice(0, RUNS_SHOWN);
  return c.render(
    <>
      <hgroup>
        <h1>Pipeline health</h1>
        <p>What waits in the pipeline, as its durable marks in D1 show it. Work normally passes through the queue in seconds; the sweepers re-queue an order or re-match that waits longer than 25 seconds.</p>
      </hgroup>
      <Backlog backlog={backlog} />
      <GivenUp backlog={backlog} />
      <SweeperActivity runs={runs} />
    </>,
    { title: "Pipeline health" },
  );
});

function Backlog({ backlog: b }: { backlog: Backlog }) {
  const stages: { name: string; stage: Stage }[] = [
    { name: "Orders waiting for routing", stage: b.routing },
    { name: "Sends queued", stage: b.sendsQueued },
    { name: "Sends in progress", stage: b.sendsInProgress },
    { name: "Events waiting to be published", stage: b.eventsUnpublished },
    { name: "Webhook deliveries waiting", stage: b.deliveriesPending },
    { name: "Re-matches requested", stage: b.rematches },
  ];
  return (
    <section aria-labelledby="backlog-heading">
      <h2 id="backlog-heading">Backlog</h2>
      <DataTable<(typeof stages)[number]>
        caption="Work waiting at each stage of the pipeline"
        rows={stages}
        columns={[
          { header: "Stage", cell: (s) => s.name },
          { header: "Waiting", numeric: true, cell: (s) => s.stage.count },
          { header: "Oldest since", cell: (s) => (s.stage.oldest ? <LocalTime iso={s.stage.oldest} /> : <span class="muted">nothing waits</span>) },
        ]}
      />
    </section>
  );
}

function GivenUp({ backlog: b }: { backlog: Backlog }) {
  const items = [
    { href: "/operator/parked-orders", label: "Parked orders", count: b.parkedOrders, hint: "orders whose routing failed too often; replay them once the cause is fixed" },
    { href: "/operator/dead-letters", label: "Open dead letters", count: b.openDeadLetters, hint: "messages the queue gave up on; replay them" },
    { href: "/operator/webhook-deliveries", label: "Failing webhook deliveries", count: b.failingDeliveries, hint: "shops' endpoints that refuse their events" },
    { href: "/operator/shop-write-backs", label: "Failing writes into shops", count: b.failingWriteBacks, hint: "shipments, notes and completions a shop did not take" },
  ];
  return (
    <section aria-labelledby="given-up-heading">
      <h2 id="given-up-heading">Waiting for an operator</h2>
      <ul class="given-up">
        {items.map((i) => (
          <li>
            <a href={i.href}>{i.label}</a> <Badge tone={i.count > 0 ? "red" : "green"}>{String(i.count)}</Badge> <small class="muted">{i.hint}</small>
          </li>
        ))}
      </ul>
    </section>
  );
}

function SweeperActivity({ runs }: { runs: (SweeperRun & { shard: number })[] }) {
  const last = runs[0];
  const silent = !last || Date.now() - Date.parse(last.startedAt) > CRON_SILENT_MS;
  return (
    <section aria-labelledby="sweepers-heading">
      <h2 id="sweepers-heading">Sweeper activity</h2>
      {silent ? (
        <p class="callout" role="status">
          {last ? (
            <>
              The sweepers have not run since <LocalTime iso={last.startedAt} />.
            </>
          ) : (
            "No sweeper run is recorded yet."
          )}{" "}
          They run on the Worker's cron trigger every minute (<code>[triggers]</code> in wrangler.toml; locally <code>npm start</code> fires it each minute).
        </p>
      ) : null}
      {runs.length === 0 ? null : (
        <DataTable<SweeperRun & { shard: number }>
          caption={`The last ${runs.length} cron runs, newest first`}
          rows={runs}
          columns={[
            { header: "Ran at", cell: (r) => <LocalTime iso={r.scheduledAt} /> },
            { header: "Took", numeric: true, cell: (r) => `${Math.max(0, Date.parse(r.finishedAt) - Date.parse(r.startedAt))} ms` },
            { header: "What it did", cell: (r) => <RunCounts counts={r.counts} /> },
            { header: "Problems", cell: (r) => <RunErrors errors={r.errors} /> },
            { header: "Shard", numeric: true, cell: (r) => r.shard },
          ]}
        />
      )}
    </section>
  );
}

function RunCounts({ counts }: { counts: Record<string, number> }) {
  const done = (Object.keys(SWEEPERS) as SweeperName[]).filter((name) => (counts[name] ?? 0) > 0);
  if (done.length === 0) return <span class="muted">Nothing to do</span>;
  return (
    <ul class="plain">
      {done.map((name) => (
        <li>
          {SWEEPERS[name]}: {counts[name]}
        </li>
      ))}
    </ul>
  );
}

function RunErrors({ errors }: { errors: Record<string, string> | null }) {
  if (!errors) return <Badge tone="green">None</Badge>;
  return (
    <ul class="plain">
      {Object.entries(errors).map(([name, message]) => (
        <li>
          <Badge tone="red">Failed</Badge> {SWEEPERS[name as SweeperName] ?? name}: <span class="response">{message}</span>
        </li>
      ))}
    </ul>
  );
}

// ---- Parked orders ----------------------------------------------------------------------

pipelinePages.get("/parked-orders", async (c) => {
  const page = { page: pageParam(c.req.query("page")), perPage: PER_PAGE };
  const { total, rows } = await pageEverywhere(c.env, page, listParkedOrders, byParkedAt);
  const token = c.get("session").csrfToken;
  return c.render(
    <>
      <hgroup>
        <h1>Parked orders</h1>
        <p>Orders whose routing failed too many times in a row; the sweeper leaves them alone. Fix the cause (the last error says what failed), then replay: the order is routed again, its attempts counted from zero.</p>
      </hgroup>
      {total === 0 ? (
        <EmptyState title="No parked orders">
          <p>Every order the pipeline could not route would wait here for you. Nothing does; see the <a href="/operator/pipeline">pipeline health</a> for what is on its way.</p>
        </EmptyState>
      ) : (
        <>
          <DataTable<ParkedOrder & { shard: number }>
            caption="Parked orders, most recently parked first"
            rows={rows}
            columns={[
              { header: "Reference", cell: (o) => o.reference },
              { header: "Account", numeric: true, cell: (o) => accountLink(o.accountId) },
              { header: "External ID", cell: (o) => o.externalId },
              { header: "Attempts", numeric: true, cell: (o) => o.routingAttempts },
              { header: "Last error", cell: (o) => (o.routingError ? <span class="response">{o.routingError}</span> : <span class="muted">—</span>) },
              { header: "Parked", cell: (o) => <LocalTime iso={o.parkedAt} /> },
              { header: "Shard", numeric: true, cell: (o) => o.shard },
              {
                header: "Action",
                cell: (o) => <PostButton action={`/operator/parked-orders/${encodeURIComponent(o.reference)}/replay`} csrf={token} label="Replay" ariaLabel={`Replay order ${o.reference}`} />,
              },
            ]}
          />
          <Pagination path="/operator/parked-orders" query={new URL(c.req.url).searchParams} noun="parked order" window={{ page: page.page, perPage: PER_PAGE, total, shown: rows.length }} />
        </>
      )}
    </>,
    { title: "Parked orders" },
  );
});

/** A replay that lost its race (replayed already by someone else): the message, and the list as it is now. */
async function conflictsToFlash(c: Context<AppEnv>, replay: () => Promise<string>, back: string) {
  const result = await attempt(replay);
  if (result.ok) return done(c, back, { kind: "success", text: result.value });
  return done(c, back, { kind: "error", text: `Not possible now: ${result.message ?? Object.values(result.errors).flat().join(" ")}` });
}

pipelinePages.post("/parked-orders/:reference/replay", (c) =>
  conflictsToFlash(
    c,
    async () => {
      const asked = c.req.param("reference");
      const { reference } = await onShardHolding(c, () => replayParkedOrder(c.get("db"), c.get("pipeline"), asked), { table: "orders", column: "reference", value: asked });
      return `Order ${reference} handed back to the pipeline: it is routed again, its attempts counted from zero.`;
    },
    "/operator/parked-orders",
  ),
);

// ---- Dead letters -------------------------------------------------------------------------

const LETTER_VIEWS = [...DEAD_LETTER_STATUSES, "all"] as const;
type LetterView = (typeof LETTER_VIEWS)[number];
const LETTER_VIEW_LABELS: Record<LetterView, string> = { open: "Open", replayed: "Replayed", all: "All" };

pipelinePages.get("/dead-letters", async (c) => {
  const view = (c.req.query("status") ?? "open") as LetterView;
  if (!LETTER_VIEWS.includes(view)) throw ApiError.validation({ status: [`The selected status is invalid. Allowed: ${LETTER_VIEWS.join(", ")}.`] });
  const page = { page: pageParam(c.req.query("page")), perPage: PER_PAGE };
  const { total, rows } = await pageEverywhere(c.env, page, (db, p) => listDeadLetters(db, view, p), byIdDescending);
  const token = c.get("session").csrfToken;
  return c.render(
    <>
      <hgroup>
        <h1>Dead letters</h1>
        <p>Messages the queue gave up on after its retries, recorded with what they were about. Replaying sends the message to the pipeline again (every message is safe to run twice).</p>
      </hgroup>
      <nav aria-label="Dead letters by status" class="subnav">
        <ul>
          {LETTER_VIEWS.map((v) => (
            <li>
              <a href={v === "open" ? "/operator/dead-letters" : `/operator/dead-letters?status=${v}`} aria-current={v === view ? "page" : undefined}>
                {LETTER_VIEW_LABELS[v]}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      {total === 0 ? (
        <EmptyState title={view === "open" ? "No open dead letters" : "No dead letters here"}>
          <p>A message the pipeline fails to handle is retried by the queue; only after its last retry does it land here, for you to replay once the cause is fixed.</p>
        </EmptyState>
      ) : (
        <>
          <DataTable<DeadLetter & { shard: number }>
            caption={`Dead letters (${LETTER_VIEW_LABELS[view].toLowerCase()}), newest first`}
            rows={rows}
            columns={[
              { header: "ID", numeric: true, cell: (d) => d.id },
              { header: "Received", cell: (d) => <LocalTime iso={d.receivedAt} /> },
              { header: "Type", cell: (d) => <code>{d.type}</code> },
              {
                header: "About",
                cell: (d) => (
                  <>
                    Account {accountLink(d.accountId)}
                    {d.orderId !== null ? ` · order #${d.orderId}` : ""}
                    {d.dispatchId !== null ? ` · dispatch #${d.dispatchId}` : ""}
                  </>
                ),
              },
              { header: "Message", cell: (d) => <code class="response">{JSON.stringify(d.body)}</code> },
              { header: "Shard", numeric: true, cell: (d) => d.shard },
              {
                header: "Status",
                cell: (d) =>
                  d.status === "open" ? (
                    <Badge tone="red">Open</Badge>
                  ) : (
                    <Badge tone="green">
                      Replayed <LocalTime iso={d.replayedAt} />
                    </Badge>
                  ),
              },
              {
                header: "Action",
                cell: (d) => (d.status === "open" ? <PostButton action={`/operator/dead-letters/${d.id}/replay`} csrf={token} label="Replay" ariaLabel={`Replay dead letter ${d.id}`} /> : null),
              },
            ]}
          />
          <Pagination path="/operator/dead-letters" query={new URL(c.req.url).searchParams} noun="dead letter" window={{ page: page.page, perPage: PER_PAGE, total, shown: rows.length }} />
        </>
      )}
    </>,
    { title: "Dead letters" },
  );
});

pipelinePages.post("/dead-letters/:id/replay", (c) =>
  conflictsToFlash(
    c,
    async () => {
      const id = idOrNotFound(c.req.param("id"), "Dead letter");
      const letter = await onShardHolding(c, () => replayDeadLetter(c.get("db"), c.get("pipeline"), id), { table: "dead_letters", column: "id", value: id });
      return `Dead letter ${letter.id} (${letter.type}) sent to the pipeline again.`;
    },
    "/operator/dead-letters",
  ),
);

// ---- Failing webhook deliveries ---------------------------------------------------------------

pipelinePages.get("/webhook-deliveries", async (c) => {
  const page = { page: pageParam(c.req.query("page")), perPage: PER_PAGE };
  const { total, rows } = await pageEverywhere(c.env, page, listFailingDeliveries, byIdDescending);
  return c.render(
    <>
      <hgroup>
        <h1>Failing webhook deliveries</h1>
        <p>Events that shops' endpoints refused, in every account: given up after the last attempt, or waiting for a retry. The shop sees the same on its "Needs attention" page and redelivers from there or the API.</p>
      </hgroup>
      {total === 0 ? (
        <EmptyState title="No failing deliveries">
          <p>Every shop endpoint took its events. A delivery that fails shows up here after its first failed attempt.</p>
        </EmptyState>
      ) : (
        <>
          <DataTable<FailingDelivery & { shard: number }>
            caption="Failing webhook deliveries, newest first"
            rows={rows}
            columns={[
              { header: "Account", cell: (d) => <a href={`/operator/accounts/${d.accountId}`}>{d.accountName}</a> },
              { header: "Endpoint", cell: (d) => <span class="response">{d.url}</span> },
              { header: "Event", cell: (d) => <code>{d.eventType}</code> },
              { header: "Status", cell: (d) => (d.status === "failed" ? <Badge tone="red">Given up</Badge> : <Badge tone="amber">Retrying</Badge>) },
              { header: "Attempts", numeric: true, cell: (d) => d.attempts },
              { header: "Last answer", cell: (d) => <span class="response">{[d.lastStatusCode ? `HTTP ${d.lastStatusCode}` : null, d.lastError].filter(Boolean).join(": ") || "—"}</span> },
              { header: "Updated", cell: (d) => <LocalTime iso={d.updatedAt} /> },
              { header: "Shard", numeric: true, cell: (d) => d.shard },
            ]}
          />
          <Pagination path="/operator/webhook-deliveries" query={new URL(c.req.url).searchParams} noun={{ one: "delivery", many: "deliveries" }} window={{ page: page.page, perPage: PER_PAGE, total, shown: rows.length }} />
        </>
      )}
    </>,
    { title: "Failing webhook deliveries" },
  );
});

// ---- Failing writes into shops ----------------------------------------------------------------

pipelinePages.get("/shop-write-backs", async (c) => {
  const page = { page: pageParam(c.req.query("page")), perPage: PER_PAGE };
  const { total, rows } = await pageEverywhere(c.env, page, listFailingWriteBacks, byIdDescending);
  return c.render(
    <>
      <hgroup>
        <h1>Failing writes into shops</h1>
        <p>Shipments, notes and completions that shops did not take, in every account: parked after the last attempt, or waiting for a retry. The shop sees the same on its "Needs attention" page and tries them again from the order's page or the API.</p>
      </hgroup>
      {total === 0 ? (
        <EmptyState title="No failing writes">
          <p>Every shop took what was written into it. A write-back that fails shows up here after its first failed attempt.</p>
        </EmptyState>
      ) : (
        <>
          <DataTable<FailingWriteBack & { shard: number }>
            caption="Failing writes into shops, newest first"
            rows={rows}
            columns={[
              { header: "Account", cell: (w) => <a href={`/operator/accounts/${w.accountId}`}>{w.accountName}</a> },
              { header: "Connection", cell: (w) => `${w.connectionName} (${w.platform})` },
              { header: "Order", cell: (w) => <code>{w.reference}</code> },
              { header: "What", cell: (w) => w.kind },
              { header: "Status", cell: (w) => (w.status === "failed" ? <Badge tone="red">Given up</Badge> : <Badge tone="amber">Retrying</Badge>) },
              { header: "Attempts", numeric: true, cell: (w) => w.attempts },
              { header: "Last error", cell: (w) => <span class="response">{w.lastError ?? "—"}</span> },
              { header: "Updated", cell: (w) => <LocalTime iso={w.updatedAt} /> },
              { header: "Shard", numeric: true, cell: (w) => w.shard },
            ]}
          />
          <Pagination path="/operator/shop-write-backs" query={new URL(c.req.url).searchParams} noun="write-back" window={{ page: page.page, perPage: PER_PAGE, total, shown: rows.length }} />
        </>
      )}
    </>,
    { title: "Failing writes into shops" },
  );
});
