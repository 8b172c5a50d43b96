// The supplier page's return terms (src/returns/settings.service.ts, as PUT
// /api/v1/suppliers/{id}/returns-settings): authorising in advance with the return address, the
// return window and how long the supplier may take to answer before Needs attention lists a return.
// Posted to returns.pages.tsx; refused, the supplier page comes back with each message beside its field.
import type { ValidationErrors } from "../lib/errors";
import { text, type FormValues } from "../console/forms";
import { Checkbox, CsrfField, Field, FormError } from "../ui/field";
import type { ReturnSettings } from "./settings.service";

export type ReturnSettingsForm = { values: FormValues; errors: ValidationErrors; message?: string };

export const RETURN_SETTINGS_LABELS: Record<string, string> = {
  return_address: "Return address",
  window_days: "Return window in days",
  answer_within_hours: "Answer returns within (hours)",
};

export function ReturnSettingsFormSection({ supplierId, settings, csrf, form }: { supplierId: number; settings: ReturnSettings; csrf: string; form?: ReturnSettingsForm }) {
  const values: FormValues = form?.values ?? {
    auto_authorise: settings.auto_authorise ? "true" : "",
    return_address: settings.return_address ?? "",
    window_days: String(settings.window_days),
    answer_within_hours: settings.answer_within_hours === null ? "" : String(settings.answer_within_hours),
  };
  const errors = form?.errors ?? {};
  return (
    <section aria-labelledby="returns-settings-heading" id="returns-settings">
      <h2 id="returns-settings-heading">Returns</h2>
      <form method="post" action={`/console/suppliers/${supplierId}/returns-settings`} novalidate class="stacked">
        <CsrfField token={csrf} />
        <FormError messages={form?.message ? [form.message] : undefined} />
        <Field name="return_address" label={RETURN_SETTINGS_LABELS.return_address} value={text(values, "return_address")} errors={errors} hint="Where customers send this supplier's goods back" />
        <Checkbox name="auto_authorise" label="Authorise its returns at once, to the return address above (the RMA is ours: RMA-<return id>)" checked={text(values, "auto_authorise") === "true"} />
        <div class="grid two">
          <Field name="window_days" type="number" inputmode="numeric" min="0" max="3650" label={RETURN_SETTINGS_LABELS.window_days} value={text(values, "window_days")} errors={errors} hint="After a line's last shipment; later requests need “force”" />
          <Field
            name="answer_within_hours"
            type="number"
            inputmode="numeric"
            min="1"
            max="8760"
            label={RETURN_SETTINGS_LABELS.answer_within_hours}
            value={text(values, "answer_within_hours")}
            errors={errors}
            hint="Needs attention lists a return it leaves unanswered longer; empty: never"
          />
        </div>
        <button type="submit" class="secondary">
          Save return terms
        </button>
      </form>
    </section>
  );
}
