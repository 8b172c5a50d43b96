// The stock and price sync's settings on a connection's console page (docs/shops-stock.md, "In the
// console"): what is synced, the quantity rule, buffer, products without an offer, match by, markup,
// rounding and the guards, as form fields named by their API path (settings.stock_sync.buffer), so
// the API's 422 lands beside its field; and the preview of the next sync, old → new.
import type { FormValues } from "../../console/forms";
import { text } from "../../console/forms";
import type { ValidationErrors } from "../../lib/errors";
import { Badge } from "../../ui/badge";
import { Field, SelectField } from "../../ui/field";
import { EmptyState } from "../../ui/notice";
import { DataTable } from "../../ui/table";
import { SYNC_SETTINGS } from "../platforms/settings";
import { priceText } from "./compute";
import type { PreviewProduct, StockPreview } from "./preview.service";
import { count } from "../../lib/plural";

type Option = { value: string; label: string };
type SyncField = { group: (typeof SYNC_SETTINGS)[number]; key: string; label: string; hint?: string; options?: Option[]; kind?: "integer" | "decimal" | "optional" };

const YES_NO = (yes: string): Option[] => [
  { value: "true", label: yes },
  { value: "false", label: "No" },
];

/** Every field, in the order the form shows them. */
const FIELDS: SyncField[] = [
  { group: "stock_sync", key: "enabled", label: "Sync stock into the shop", options: YES_NO("Yes: after every feed import, and on demand") },
  {
    group: "stock_sync",
    key: "match_by",
    label: "Match products by",
    options: [
      { value: "sku", label: "SKU" },
      { value: "ean13", label: "EAN-13" },
    ],
  },
  {
    group: "stock_sync",
    key: "quantity",
    label: "Stock from the suppliers' offers",
    options: [
      { value: "sum", label: "The sum of every supplier's stock" },
      { value: "max", label: "The largest supplier stock" },
      { value: "first_by_priority", label: "The stock of the supplier first by priority" },
    ],
  },
  { group: "stock_sync", key: "buffer", label: "Buffer", hint: "Subtracted from the stock, which never goes below 0: 0 to 1,000,000.", kind: "integer" },
  {
    group: "stock_sync",
    key: "without_offer",
    label: "A product no supplier offers any more",
    options: [
      { value: "zero", label: "Write its stock as 0" },
      { value: "leave", label: "Leave its stock as the shop has it" },
    ],
  },
  { group: "price_sync", key: "enabled", label: "Sync prices too", options: YES_NO("Yes: the regular price, with the stock") },
  { group: "price_sync", key: "markup_percent", label: "Markup (%)", hint: "Added to the purchase price: 0 to 1,000, e.g. 25 or 12.5.", kind: "decimal" },
  { group: "price_sync", key: "round_to", label: "Round up to a price ending in", hint: "The cents, 0 to 0.99 (0.95: 12.30 becomes 12.95). Empty: no rounding.", kind: "optional" },
  { group: "sync_guards", key: "min_price", label: "Minimum price", hint: "A product whose price would be lower is not written (it is skipped, saying why). Empty: none.", kind: "optional" },
  {
    group: "sync_guards",
    key: "min_margin_percent",
    label: "Minimum margin over the purchase price (%)",
    hint: "A product priced under its purchase price plus this margin is not written. Empty: none.",
    kind: "optional",
  },
  {
    group: "sync_guards",
    key: "max_drop_percent",
    label: "Maximum price drop per product (%)",
    hint: "A sync that would lower any price by more stops before writing and waits for you to confirm it. Empty: none.",
    kind: "optional",
  },
  {
    group: "sync_guards",
    key: "max_changed_percent",
    label: "Maximum share of products changed per sync (%)",
    hint: "Of the shop's products we know. A sync that would change more stops before writing and waits for you to confirm it. Empty: none.",
    kind: "optional",
  },
];

const nameOf = (f: SyncField) => `settings.${f.group}.${f.key}`;

/** The fields' labels by their API path, for the 422's messages. */
export const STOCK_SETTING_LABELS: Record<string, string> = Object.fromEntries(FIELDS.map((f) => [nameOf(f), f.label]));

/** A number as typed; text that is no number goes to the schema as it is, which says so beside the field. */
const numberOrText = (v: string) => (/^-?\d+(\.\d+)?$/.test(v) ? Number(v) : v);

/**
 * The form's stock and price settings in the API's shape. A group is sent only when the connection
 * has it already or the form turns it on (or, for the guards, sets one), so a save of another field
 * adds nothing to the stored settings.
 */
export function stockSettingsInput(values: FormValues, stored: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const f of FIELDS) {
    const v = text(values, nameOf(f)).trim();
    const group = (out[f.group] ??= {});
    if (f.options) {
      if (v !== "") group[f.key] = v === "true" ? true : v === "false" ? false : v;
    } else if (v === "") {
      if (f.kind === "optional") group[f.key] = null;
    } else group[f.key] = numberOrText(v);
  }
  const sent: Record<string, unknown> = {};
  for (const [group, fields] of Object.entries(out)) {
    const turnedOn = group === "sync_guards" ? Object.values(fields).some((v) => v !== null) : fields.enabled === true;
    if (stored[group] !== undefined || turnedOn) sent[group] = fields;
  }
  return sent;
}

/** The stored stock and price settings as the form shows them (an unset one empty, not "null"). */
export function stockSettingsValues(settings: Record<string, unknown>): FormValues {
  const values: FormValues = {};
  for (const f of FIELDS) {
    const group = settings[f.group] as Record<string, unknown> | undefined;
    const v = group?.[f.key];
    values[nameOf(f)] = v === undefined || v === null ? (f.options ? (f.key === "enabled" ? "false" : "") : "") : String(v);
  }
  return values;
}

/** The fieldsets, inside the connection's form; the preview button posts the same form to the preview. */
export function StockSettingsFields(props: { values: FormValues; errors: ValidationErrors; previewAction: string }) {
  const groups = [
    ["stock_sync", "Stock sync"],
    ["price_sync", "Price sync"],
    ["sync_guards", "Guards on what a sync writes"],
  ] as const;
  return (
    <section aria-labelledby="stock-settings-heading" class="stock-settings">
      <h3 id="stock-settings-heading">Stock and price sync</h3>
      {groups.map(([group, legend]) => (
        <fieldset>
          <legend>{legend}</legend>
          {props.errors[`settings.${group}`] ? <p class="field-error">{props.errors[`settings.${group}`].join(" ")}</p> : null}
          {FIELDS.filter((f) => f.group === group).map((f) => {
            const name = nameOf(f);
            const id = `field-${name.replaceAll(".", "-")}`;
            return f.options ? (
              <SelectField name={name} id={id} label={f.label} value={text(props.values, name)} options={f.options} errors={props.errors} hint={f.hint} />
            ) : (
              <Field name={name} id={id} label={f.label} inputmode={f.kind === "integer" ? "numeric" : "decimal"} value={text(props.values, name)} errors={props.errors} hint={f.hint} />
            );
          })}
        </fieldset>
      ))}
      <p>
        <button type="submit" class="secondary" formaction={props.previewAction}>
          Preview the next sync
        </button>{" "}
        <small>With the settings above, saved or not: what the next sync would write, read from your shop. Nothing is written or saved.</small>
      </p>
    </section>
  );
}

const show = (v: number | null, money: boolean) => (v === null ? "—" : money ? priceText(v) : String(v));
function OldNew({ old, now, money }: { old: number | null; now: number | null; money: boolean }) {
  if (now === null) return <span class="muted">{show(old, money)} (not written)</span>;
  return (
    <span class="old-new">
      {show(old, money)} → {show(now, money)}
    </span>
  );
}

const OUTCOMES: Record<PreviewProduct["outcome"], { label: string; tone: "green" | "grey" | "orange" }> = {
  write: { label: "Would write", tone: "green" },
  unchanged: { label: "Unchanged", tone: "grey" },
  unknown: { label: "Not in the shop", tone: "orange" },
  skipped: { label: "Skipped", tone: "orange" },
};

/** The preview of the next sync: its first products, old → new, and what the guards would do. */
export function StockPreviewSection({ preview }: { preview: StockPreview }) {
  const g = preview.guards;
  return (
    <section aria-labelledby="stock-preview-heading" id="stock-preview">
      <h2 id="stock-preview-heading">Preview of the next sync</h2>
      <p>
        {preview.full ? "Every product" : "The products that changed since the last sync"}: {preview.total}
        {preview.total > preview.products.length ? `, the first ${preview.products.length} shown` : ""}. Nothing was written or saved.{" "}
        {preview.oldFrom === "shop" ? "Old values as your shop has them now." : `Your shop could not be read (${preview.readError}): old values are the last ones written.`}
      </p>
      {g.wouldStop ? (
        <p class="needs-confirmation" role="status">
          {`The guards would stop this sync and ask you first: ${
            g.priceDrops > 0 ? `${g.priceDrops === 1 ? "1 price drops" : `${g.priceDrops} prices drop`} by more than the maximum; ` : ""
          }${g.changed} of the shop's ${count(g.mapped, "product")} would change.`}
        </p>
      ) : null}
      {preview.products.length === 0 ? (
        <EmptyState title="Nothing to write">
          <p>No product changed since the last sync. A change of settings that reaches every product runs a full sync.</p>
        </EmptyState>
      ) : (
        <DataTable<PreviewProduct>
          caption="What the next sync would write, old → new"
          rows={preview.products}
          columns={[
            { header: "Product", cell: (p) => p.key },
            { header: "Shop product ID", cell: (p) => p.shopId ?? <span class="muted">—</span> },
            { header: "Outcome", cell: (p) => <Badge tone={OUTCOMES[p.outcome].tone}>{OUTCOMES[p.outcome].label}</Badge> },
            { header: "Stock", cell: (p) => <OldNew old={p.oldQuantity} now={p.quantity} money={false} />, numeric: true },
            {
              header: "Price",
              cell: (p) => (
                <>
                  <OldNew old={p.oldPrice} now={p.price} money={true} />
                  {p.dropTooFar ? (
                    <>
                      {" "}
                      <Badge tone="red">Drop past the maximum</Badge>
                    </>
                  ) : null}
                </>
              ),
              numeric: true,
            },
            { header: "Reason", cell: (p) => p.reason ?? "" },
          ]}
        />
      )}
    </section>
  );
}
