// "Add shipment…" on a line of the order page that ships by hand (a manual supplier's, or one
// completed by hand): quantity, carrier, tracking number and URL, as the supplier portal's form.
// The handler (order-actions.pages.tsx) records it through src/forwarding/shipments-by-hand.ts. Each
// render carries a fresh token as the shipment's id: the same form sent twice records one shipment.
import { CsrfField, Field, FormError } from "../ui/field";
import type { ValidationErrors } from "../lib/errors";

export const SHIPMENT_LABELS: Record<string, string> = {
  quantity: "Quantity shipped",
  carrier: "Carrier",
  tracking_number: "Tracking number",
  tracking_url: "Tracking URL",
};

/** What was sent and refused, shown again in the line's form; `message`: a refusal of no field (409), shown over the lines (ShipmentRefused). */
export type ShipmentFormState = { lineId: number; values: Record<string, string>; errors: ValidationErrors; message?: string };

export const shipmentPath = (reference: string, lineId: number) => `/console/orders/${reference}/lines/${lineId}/shipments`;

export function ShipmentByHandForm(props: { reference: string; line: { id: number; name: string }; left: number; csrf: string; form?: ShipmentFormState }) {
  const { line, left } = props;
  const sent = props.form?.lineId === line.id ? props.form : undefined;
  const field = (name: keyof typeof SHIPMENT_LABELS & string, extra: Partial<Parameters<typeof Field>[0]> = {}) => (
    <Field id={`ship-${line.id}-${name}`} name={name} label={SHIPMENT_LABELS[name]} value={sent?.values[name]} errors={sent?.errors} {...extra} />
  );
  const shown = new Set(Object.keys(SHIPMENT_LABELS));
  return (
    <details class="answer" open={!!sent}>
      <summary>
        Add shipment…<span class="visually-hidden"> line {line.name}</span>
      </summary>
      <form method="post" action={shipmentPath(props.reference, line.id)} novalidate>
        <CsrfField token={props.csrf} />
        {/* A refused form keeps its token: sent again once fixed, it is still one shipment. */}
        <input type="hidden" name="shipment_id" value={sent?.values.shipment_id || `console-${crypto.randomUUID()}`} />
        {field("quantity", { type: "number", inputmode: "numeric", min: "1", max: String(left), hint: `Leave empty for all ${left} left to ship` })}
        {field("carrier", { autocomplete: "off", hint: "For example PostNL or DHL" })}
        {field("tracking_number", { autocomplete: "off" })}
        {field("tracking_url", { type: "url", hint: "The carrier's tracking page (https://…)" })}
        <FormError messages={sent ? Object.entries(sent.errors).flatMap(([name, messages]) => (shown.has(name) ? [] : messages)) : undefined} />
        <button type="submit">
          Add shipment<span class="visually-hidden"> to line {line.name}</span>
        </button>
      </form>
    </details>
  );
}

/** A refusal that concerns no field (the line does not ship by hand, or changed meanwhile): over the lines as they are now, whose form may be gone. */
export function ShipmentRefused({ form }: { form?: ShipmentFormState }) {
  if (!form?.message) return null;
  return (
    <p class="callout" role="alert">
      No shipment added: {form.message} The lines below show how each is now.
    </p>
  );
}
