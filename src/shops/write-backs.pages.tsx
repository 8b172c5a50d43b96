// The console face of write-backs: the order page's "In the shop" section (what was written into
// the shop for this order, each attempt's calls, a replay button for a parked one), the list of a
// connection's recent write-backs that the connections page includes, and the replay's form handler,
// as thin as POST /api/v1/orders/{reference}/shop-sync/{id}/replay.
import { Hono, type Context } from "hono";
import type { AttemptOutcome, WriteBackKind, WriteBackStatus } from "../db/schema";
import type { AppEnv } from "../env";
import { attempt, done } from "../console/forms";
import { parseId } from "../lib/params";
import { Badge, type Tone } from "../ui/badge";
import { CsrfField } from "../ui/field";
import { DataTable } from "../ui/table";
import { LocalTime } from "../ui/time";
import { replayWriteBack, type WriteBack } from "./write-back.service";
import { count } from "../lib/plural";

export const writeBackPages = new Hono<AppEnv>();

export const WRITE_BACK_LOOK: Record<WriteBackStatus, { label: string; tone: Tone }> = {
  pending: { label: "Waiting", tone: "amber" },
  delivering: { label: "Writing", tone: "blue" },
  done: { label: "Written", tone: "green" },
  failed: { label: "Failed", tone: "red" },
  skipped: { label: "Skipped", tone: "grey" },
};

const KIND_LABEL: Record<WriteBackKind, string> = { shipment: "Shipment", note: "Private note", hold: "Order put on hold", release: "Order taken off hold", complete: "Order completed" };

function StatusCell({ w }: { w: WriteBack }) {
  const look = WRITE_BACK_LOOK[w.status];
  const retrying = w.status === "pending" && w.attemptsCount > 0;
  return (
    <>
      <Badge tone={retrying ? "orange" : look.tone}>{retrying ? "Retrying" : w.status === "done" && w.dryRun ? "Dry run" : look.label}</Badge>
      {w.status === "done" && w.dryRun ? <span class="muted"> nothing sent: the calls show what would have been written</span> : null}
      {w.lastError ? <span class="response"> {w.lastError}</span> : null}
      {w.nextAttemptAt ? (
        <span class="muted">
          {" "}
          next attempt <LocalTime iso={w.nextAttemptAt} />
        </span>
      ) : null}
    </>
  );
}

/** An attempt's outcome in words; an interrupted one's error says the rest (the next attempt looked first). */
const OUTCOME_LABEL: Record<AttemptOutcome, string> = {
  written: "written",
  found: "found in the shop already: nothing written again",
  skipped: "nothing to write",
  failed: "failed",
  interrupted: "interrupted",
};

/** Every attempt, each call with what was sent and the shop's answer, folded away. */
function Attempts({ w }: { w: WriteBack }) {
  if (w.attempts.length === 0) return <span class="muted">none yet</span>;
  return (
    <details>
      <summary>{count(w.attempts.length, "attempt")}</summary>
      <ol>
        {w.attempts.map((a) => (
          <li>
            <LocalTime iso={a.at} /> · {OUTCOME_LABEL[a.outcome]} · {a.durationMs} ms{a.error ? <span class="response"> · {a.error}</span> : null}
            <ul class="plain">
              {a.calls.map((call) => (
                <li>
                  <code>
                    {call.method} {call.path}
                  </code>{" "}
                  → {call.status === null ? (call.dryRun ? "not sent (dry run)" : "no answer") : `HTTP ${call.status}`} · {call.durationMs} ms
                  {call.sent ? (
                    <>
                      <br />
                      sent <code class="response">{call.sent}</code>
                    </>
                  ) : null}
                  {call.answer ? (
                    <>
                      <br />
                      answer <code class="response">{call.answer}</code>
                    </>
                  ) : null}
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
    </details>
  );
}

function ReplayButton({ w, csrf }: { w: WriteBack; csrf: string }) {
  if (w.status !== "failed") return null;
  return (
    <form method="post" action={`/console/orders/${w.order.reference}/shop-sync/${w.id}/replay`}>
      <CsrfField token={csrf} />
      <button type="submit" class="secondary" aria-label={`Try again: write-back #${w.id}`}>
        Try again
      </button>
    </form>
  );
}

/** The order page's section: what was written into the shop for the order, oldest first. */
/** readOnly: no "Try again" (an archived order's page: src/archive/archived-order.pages.tsx). */
export function InTheShop({ writeBacks, csrf, readOnly = false }: { writeBacks: WriteBack[]; csrf: string; readOnly?: boolean }) {
  return (
    <section aria-labelledby="in-the-shop-heading" id="in-the-shop">
      <h2 id="in-the-shop-heading">In the shop</h2>
      {writeBacks.length === 0 ? (
        <p class="muted">Nothing was written into a shop for this order. Shipments, notes and the completion are written through the account's shop connections.</p>
      ) : (
        <DataTable<WriteBack>
          caption="What was written into the shop for this order, oldest first"
          rows={writeBacks}
          columns={[
            { header: "#", cell: (w) => String(w.id) },
            { header: "Connection", cell: (w) => `${w.connection.name} (${w.connection.platform})` },
            { header: "What", cell: (w) => <>{KIND_LABEL[w.kind]} <code>{w.event.type}</code></> },
            { header: "Status", cell: (w) => <StatusCell w={w} /> },
            { header: "Shop ids", cell: (w) => (w.shopIds.length ? w.shopIds.join(", ") : "—") },
            { header: "Attempts", cell: (w) => <Attempts w={w} /> },
            ...(readOnly ? [] : [{ header: "", cell: (w: WriteBack) => <ReplayButton w={w} csrf={csrf} /> }]),
          ]}
        />
      )}
    </section>
  );
}

/** A connection's recent write-backs, newest first, with their failures (the connections page includes it). */
export function ConnectionWriteBacks({ writeBacks, csrf }: { writeBacks: WriteBack[]; csrf: string }) {
  if (writeBacks.length === 0) return <p class="muted">Nothing written through this connection yet.</p>;
  return (
    <DataTable<WriteBack>
      caption="Recent write-backs through this connection, newest first"
      rows={writeBacks}
      columns={[
        { header: "When", cell: (w) => <LocalTime iso={w.createdAt} /> },
        { header: "Order", cell: (w) => <a href={`/console/orders/${w.order.reference}#in-the-shop`}>{w.order.reference}</a> },
        { header: "What", cell: (w) => KIND_LABEL[w.kind] },
        { header: "Status", cell: (w) => <StatusCell w={w} /> },
        { header: "Attempts", cell: (w) => <Attempts w={w} /> },
        { header: "", cell: (w) => <ReplayButton w={w} csrf={csrf} /> },
      ]}
    />
  );
}

writeBackPages.post("/orders/:reference/shop-sync/:id/replay", async (c: Context<AppEnv>) => {
  const reference = c.req.param("reference")!;
  const raw = c.req.param("id")!;
  const back = `/console/orders/${reference}#in-the-shop`;
  const id = parseId(raw);
  if (id === null) return done(c, back, { kind: "error", text: `Shop write-back with id '${raw}' not found` });
  const result = await attempt(() => replayWriteBack(c.get("db"), c.get("pipeline"), c.get("account").id, reference, id));
  if (!result.ok) return done(c, back, { kind: "error", text: result.message ?? "Not replayed." });
  return done(c, back, { kind: "success", text: `Write-back #${id} will be tried again.` });
});
