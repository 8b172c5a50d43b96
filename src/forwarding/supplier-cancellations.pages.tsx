// The supplier portal's cancellation requests: what shops ask this supplier to cancel (or withdrew
// after its silence), each line with its answer: confirm, or refuse (with what happened). A page of
// its own beside the open dispatches; it calls the same services as GET /api/v1/supplier/cancellations
// and the confirm_cancellation / refuse_cancellation answers.
import { Hono, type Context } from "hono";
import type { AppEnv } from "../env";
import type { ValidationErrors } from "../lib/errors";
import { pageParam } from "../lib/pagination";
import { attempt, done, formFields, text } from "../console/forms";
import { Badge } from "../ui/badge";
import { CsrfField, Field } from "../ui/field";
import { EmptyState } from "../ui/notice";
import { Pagination } from "../ui/pagination";
import { LocalTime } from "../ui/time";
import { applyAnswers } from "./answers.service";
import { buildCancellationDocument, type CancellationDocument } from "./cancellation-document";
import { listSupplierCancellations, OPEN_CANCELLATION_STATUSES } from "./supplier-cancellations.service";

export const supplierCancellationPages = new Hono<AppEnv>();

const PER_PAGE = 20;

supplierCancellationPages.get("/cancellations", (c) => renderCancellations(c));

/** A refused answer, shown again on its line: the message beside the reason, what was typed kept. */
type RefusedAnswer = { lineId: number; reason: string; errors: ValidationErrors };

async function renderCancellations(c: Context<AppEnv>, refused?: RefusedAnswer) {
  const supplier = c.get("supplier");
  const page = { page: pageParam(c.req.query("page")), perPage: PER_PAGE };
  const { total, cancellations } = await listSupplierCancellations(c.get("db"), supplier, OPEN_CANCELLATION_STATUSES, page);
  const documents = cancellations.map((x) => buildCancellationDocument(x.cancellation, x.order, supplier, x.lines));
  const csrfToken = c.get("session").csrfToken;
  return c.render(
    <>
      <hgroup>
        <h1>Cancellation requests</h1>
        <p>Lines shops ask {supplier.name} not to deliver, oldest first. Confirm each, or refuse it when the goods have already left.</p>
      </hgroup>
      {total === 0 ? (
        <EmptyState title="No cancellation waits for your answer">
          <p>When a shop cancels something it sent you, it appears here (and in GET /api/v1/supplier/cancellations).</p>
        </EmptyState>
      ) : (
        <>
          {documents.map((doc) => (
            <CancellationCard doc={doc} csrfToken={csrfToken} refused={refused} />
          ))}
          <Pagination path="/supplier/cancellations" query={new URL(c.req.url).searchParams} noun="request" window={{ page: page.page, perPage: PER_PAGE, total, shown: documents.length }} />
        </>
      )}
    </>,
    { title: "Cancellation requests" },
  );
}

function CancellationCard({ doc, csrfToken, refused }: { doc: CancellationDocument; csrfToken: string; refused?: RefusedAnswer }) {
  const waiting = doc.lines.filter((l) => l.status === "requested");
  return (
    <article class="dispatch cancellation" aria-labelledby={`cancellation-${doc.cancellation_id}`}>
      <header>
        <h2 id={`cancellation-${doc.cancellation_id}`}>
          Order {doc.order.reference} <small class="muted">cancellation #{doc.cancellation_id}</small>
        </h2>
        <Badge tone={doc.purpose === "withdraw" ? "purple" : "orange"}>{doc.purpose === "withdraw" ? "Withdrawn" : "Cancellation"}</Badge>
      </header>
      <p class="muted">
        Asked <LocalTime iso={doc.created_at} /> · shop order {doc.order.external_id}
        {doc.test ? " · test order" : ""}
      </p>
      <p>
        {doc.purpose === "withdraw" ? "These lines went to another supplier: " : "Reason: "}
        {doc.reason ?? "none given"}
      </p>
      <ul class="dispatch-lines">
        {waiting.map((line) => (
          <li>
            <strong>
              {line.quantity} of {line.line_quantity} ×
            </strong>{" "}
            {line.name}
            <br />
            <small class="muted">
              SKU {line.reference ?? "—"} · EAN {line.ean13 ?? "—"} · line #{line.id}
            </small>
            <form method="post" action="/supplier/cancellations/answer" class="record-answer">
              <CsrfField token={csrfToken} />
              <input type="hidden" name="line_id" value={String(line.id)} />
              <Field
                name="reason"
                id={`refuse-reason-${line.id}`}
                label={`If you refuse for line #${line.id}: what happened (for example, it has shipped)`}
                value={refused?.lineId === line.id ? refused.reason : ""}
                errors={refused?.lineId === line.id ? refused.errors : {}}
              />
              <div class="actions">
                <button type="submit" name="action" value="confirm_cancellation">
                  Confirm cancellation
                </button>
                <button type="submit" name="action" value="refuse_cancellation" class="secondary">
                  Refuse
                </button>
              </div>
            </form>
          </li>
        ))}
      </ul>
    </article>
  );
}

supplierCancellationPages.post("/cancellations/answer", async (c) => {
  const values = await formFields(c);
  const action = text(values, "action") === "refuse_cancellation" ? "refuse_cancellation" : "confirm_cancellation";
  const reason = text(values, "reason").trim() || undefined;
  const lineId = Number(text(values, "line_id"));
  const back = (kind: "success" | "error", message: string) => done(c, "/supplier/cancellations", { kind, text: message });
  const refuse = (message: string) => {
    c.status(422);
    return renderCancellations(c, { lineId, reason: text(values, "reason"), errors: { reason: [message] } });
  };
  if (action === "refuse_cancellation" && !reason) return refuse(`Say what happened to line #${lineId} when you refuse its cancellation.`);
  if (reason && reason.length > 1000) return refuse("The Reason field must not be greater than 1000 characters.");
  const result = await attempt(() => applyAnswers(c.get("db"), c.get("pipeline"), c.get("supplier"), [{ line_id: lineId, action, reason }]));
  if (!result.ok) return back("error", result.message ?? Object.values(result.errors).flat()[0] ?? "That answer was not accepted.");
  return back("success", action === "confirm_cancellation" ? `Cancellation of line #${lineId} confirmed.` : `Cancellation of line #${lineId} refused.`);
});
