// The console's bulk actions on the order list (the same service as POST /api/v1/orders/bulk): the
// form above the table, each row's checkbox, and the page that says what happened to each order.
import type { ValidationErrors } from "../lib/errors";
import type { FormValues } from "../console/forms";
import { text } from "../console/forms";
import { CsrfField, Field, RadioGroup } from "../ui/field";
import { Badge } from "../ui/badge";
import { DataTable } from "../ui/table";
import type { BulkAction, BulkOutcome, BulkResult } from "./bulk.service";
import { BULK_MAX_ORDERS } from "./bulk.service";
import { count } from "../lib/plural";

export const BULK_FORM_ID = "bulk-form";

/** What was posted and refused: shown again with the messages beside the fields. */
export type BulkFormState = { values: FormValues; errors: ValidationErrors };

export const BULK_LABELS: Record<string, string> = { scope: "Apply to", reason: "Reason", action: "Action" };

const ACTION_LABELS: Record<BulkAction, string> = { retry_failed: "Retry failed lines", unblock: "Unblock", block: "Block" };

/** The checkbox of one row: part of the bulk form, wherever the table puts it. */
export function BulkCheckbox({ reference, form }: { reference: string; form?: BulkFormState }) {
  const ticked = Array.isArray(form?.values.references) && form.values.references.includes(reference);
  return <input type="checkbox" name="references" value={reference} form={BULK_FORM_ID} checked={ticked} aria-label={`Select order ${reference}`} />;
}

/**
 * Posts to the list's own URL with its filters (`query`), so that "every order matching the
 * filters" means the orders the list shows. Without JavaScript: the scope is a choice, and the
 * page's references travel as hidden fields.
 */
export function BulkForm(props: { query: string; references: string[]; total: number; csrf: string; form?: BulkFormState }) {
  const { references, total, form } = props;
  const values = form?.values ?? {};
  const errors = form?.errors ?? {};
  return (
    <form id={BULK_FORM_ID} method="post" action={`/console/orders/bulk${props.query ? `?${props.query}` : ""}`} novalidate class="bulk-actions">
      <CsrfField token={props.csrf} />
      {references.map((ref) => (
        <input type="hidden" name="page_references" value={ref} />
      ))}
      <div class="grid two">
        <RadioGroup
          name="scope"
          label={BULK_LABELS.scope}
          value={text(values, "scope") || "ticked"}
          errors={errors}
          hint={`At most ${BULK_MAX_ORDERS} orders at once.`}
          options={[
            { value: "ticked", label: "The ticked orders" },
            { value: "page", label: `Select all on this page (${count(references.length, "order")})` },
            { value: "filter", label: `Every order matching the filters (${total.toLocaleString("en")})` },
          ]}
        />
        <div>
          <Field name="reason" id="field-bulk-reason" label={BULK_LABELS.reason} value={text(values, "reason")} errors={errors} hint="Optional, for block and unblock: logged on every line" />
          <div class="page-actions" role="group" aria-label="Bulk actions">
            {(Object.keys(ACTION_LABELS) as BulkAction[]).map((action) => (
              <button type="submit" name="action" value={action} class={action === "block" ? "secondary" : undefined}>
                {ACTION_LABELS[action]}
              </button>
            ))}
          </div>
        </div>
      </div>
    </form>
  );
}

const TONES: Record<BulkOutcome, "green" | "grey" | "red"> = {
  retried: "green",
  blocked: "green",
  unblocked: "green",
  no_failed_lines: "grey",
  already_blocked: "grey",
  not_blocked: "grey",
  not_found: "red",
};

/** What happened to each order, in the order acted on. */
export function BulkResults({ action, results, back }: { action: BulkAction; results: BulkResult[]; back: string }) {
  const changed = results.filter((r) => TONES[r.outcome] === "green").length;
  return (
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href={back}>Orders</a> / <span aria-current="page">{ACTION_LABELS[action]}</span>
      </nav>
      <hgroup>
        <h1>{ACTION_LABELS[action]}: {count(results.length, "order")}</h1>
        <p role="status">
          {changed} changed, {results.length - changed} left as they were.
        </p>
      </hgroup>
      <DataTable<BulkResult>
        caption="What happened to each order"
        rows={results}
        columns={[
          { header: "Order", cell: (r) => (r.outcome === "not_found" ? r.reference : <a href={`/console/orders/${r.reference}`}>{r.reference}</a>) },
          { header: "Outcome", cell: (r) => <Badge tone={TONES[r.outcome]}>{r.message}</Badge> },
        ]}
      />
      <p>
        <a href={back}>Back to the orders</a>
      </p>
    </>
  );
}
