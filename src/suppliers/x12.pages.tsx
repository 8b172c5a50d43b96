// The supplier form's X12 settings (file_transfer.x12, shown while the file format is X12): every
// field of the API's setting, each with the envelope element it fills, checked by the same schema
// (x12.schemas.ts) through the same service as the API. docs/edi.md, "The settings".
import { text, type FormValues } from "../console/forms";
import type { X12Config } from "../db/schema";
import type { ValidationErrors } from "../lib/errors";
import { CheckboxGroup, Field, SelectField } from "../ui/field";
import { X12_SETS_BACK, X12_VERSIONS } from "./x12.schemas";

/** The schema's paths under file_transfer.x12 and their labels (the 422's words name them so). */
export const X12_LABELS: Record<string, string> = {
  version: "X12 version",
  sender_qualifier: "Our ID qualifier",
  sender_id: "Our EDI ID",
  receiver_qualifier: "Partner's ID qualifier",
  receiver_id: "Partner's EDI ID",
  gs_sender: "Our GS sender ID",
  gs_receiver: "Partner's GS receiver ID",
  usage: "Usage",
  element_separator: "Element separator",
  segment_terminator: "Segment terminator",
  component_separator: "Sub-element separator",
  sends_back: "Sets the supplier sends back",
  cancellation: "Cancellations",
};

/** What every setting is when the supplier has none stored yet (the API's defaults). */
const DEFAULTS = { version: "004010", sender_qualifier: "ZZ", receiver_qualifier: "ZZ", usage: "P", element_separator: "*", segment_terminator: "~", component_separator: ">", cancellation: "860" };

const SET_NAMES: Record<(typeof X12_SETS_BACK)[number], string> = {
  "997": "997 functional acknowledgement (of our 850s and 860s)",
  "855": "855 purchase order acknowledgement (accepts, rejects, backorders)",
  "856": "856 ship notice (carrier, tracking, quantities)",
  "810": "810 invoice (the invoiced price per line)",
  "846": "846 inventory (the supplier's stock)",
};

/** A line break, which may end segments, is typed as \n (a text field holds no line break). */
const LINE_BREAK = "\\n";
const separatorText = (s: string) => (s === "\n" ? LINE_BREAK : s);
/** A separator as typed: empty is the default; anything else as it is (a space is refused by the schema, never trimmed away). */
const separatorOf = (s: string) => (s === "" ? undefined : s === LINE_BREAK ? "\n" : s);
const blank = (s: string) => (s.trim() === "" ? undefined : s.trim());

/** The stored setting as the form's fields (the defaults for a supplier that has none yet). */
export function x12Values(config: X12Config | undefined | null): FormValues {
  const c = { ...DEFAULTS, sender_id: "", receiver_id: "", gs_sender: "", gs_receiver: "", sends_back: [...X12_SETS_BACK] as string[], ...config };
  return {
    ft_x12_version: c.version,
    ft_x12_sender_qualifier: c.sender_qualifier,
    ft_x12_sender_id: c.sender_id,
    ft_x12_receiver_qualifier: c.receiver_qualifier,
    ft_x12_receiver_id: c.receiver_id,
    // The application codes default to the ids: shown empty when they are the ids.
    ft_x12_gs_sender: c.gs_sender === c.sender_id ? "" : c.gs_sender,
    ft_x12_gs_receiver: c.gs_receiver === c.receiver_id ? "" : c.gs_receiver,
    ft_x12_usage: c.usage,
    ft_x12_element_separator: separatorText(c.element_separator),
    ft_x12_segment_terminator: separatorText(c.segment_terminator),
    ft_x12_component_separator: separatorText(c.component_separator),
    ft_x12_sends_back: [...c.sends_back],
    ft_x12_cancellation: c.cancellation,
  };
}

/** The checkboxes' field: formFields reads it as a list. */
export const X12_LISTS = ["ft_x12_sends_back"];

/** The form's X12 fields in the API's file_transfer.x12 shape (empty: the API's default). */
export function x12Input(values: FormValues) {
  const v = (k: string) => text(values, `ft_x12_${k}`);
  const sends = values.ft_x12_sends_back;
  return {
    version: blank(v("version")),
    sender_qualifier: blank(v("sender_qualifier")),
    sender_id: v("sender_id"),
    receiver_qualifier: blank(v("receiver_qualifier")),
    receiver_id: v("receiver_id"),
    gs_sender: blank(v("gs_sender")),
    gs_receiver: blank(v("gs_receiver")),
    usage: blank(v("usage")),
    element_separator: separatorOf(v("element_separator")),
    segment_terminator: separatorOf(v("segment_terminator")),
    component_separator: separatorOf(v("component_separator")),
    // None ticked is none sent back (the form always sends the list while X12 is chosen).
    sends_back: Array.isArray(sends) ? sends : sends ? [sends] : [],
    cancellation: blank(v("cancellation")),
  };
}

/** The form's name of an error under file_transfer.x12 (a refused entry of sends_back is the list's). */
export function x12ErrorKey(path: string): string {
  return path.startsWith("x12.sends_back") ? "ft_x12_sends_back" : `ft_${path.replace(/\./g, "_")}`;
}

/** The X12 fields, shown while the file format is X12 (channel-fields.css) and wherever one is refused. */
export function X12Fieldset({ values, errors }: { values: FormValues; errors: ValidationErrors }) {
  const v = (k: string) => text(values, `ft_x12_${k}`);
  const f = (name: string, hint: string) => <Field name={`ft_x12_${name}`} label={X12_LABELS[name]} value={v(name)} errors={errors} hint={hint} autocomplete="off" />;
  const sends = values.ft_x12_sends_back;
  return (
    <fieldset class="x12-settings">
      <legend>X12 (EDI) settings</legend>
      <p class="muted">
        Who we are and who the supplier (our trading partner) is in each file's envelope, as agreed with its EDI team. IDs are up to 15 printable characters, padded with spaces as ISA requires.
      </p>
      <div class="filter-grid">
        {f("sender_qualifier", "ISA05: two capital letters or digits (ZZ mutually defined, 01 DUNS, 12 phone); empty: ZZ")}
        {f("sender_id", "ISA06: our ID in the supplier's EDI (required)")}
        {f("receiver_qualifier", "ISA07: the qualifier of the supplier's ID; empty: ZZ")}
        {f("receiver_id", "ISA08: the supplier's ID (required)")}
        {f("gs_sender", "GS02: our application sender code; empty: our EDI ID")}
        {f("gs_receiver", "GS03: the supplier's application receiver code; empty: its EDI ID")}
        <SelectField
          name="ft_x12_version"
          label={X12_LABELS.version}
          value={v("version") || DEFAULTS.version}
          errors={errors}
          options={X12_VERSIONS.map((x) => ({ value: x, label: x }))}
          hint="GS08 (ISA12 is its first five characters)"
        />
        <SelectField
          name="ft_x12_usage"
          label={X12_LABELS.usage}
          value={v("usage") || DEFAULTS.usage}
          errors={errors}
          options={[
            { value: "P", label: "P: production" },
            { value: "T", label: "T: test" },
          ]}
          hint="ISA15: whether the supplier treats our files as real orders"
        />
        {f("element_separator", "ISA's 4th character: between elements; empty: *")}
        {f("segment_terminator", "ISA's last character: ends each segment; \\n for a line break; empty: ~")}
        {f("component_separator", "ISA16: between the parts of a composite element; empty: >")}
        <SelectField
          name="ft_x12_cancellation"
          label={X12_LABELS.cancellation}
          value={v("cancellation") || DEFAULTS.cancellation}
          errors={errors}
          options={[
            { value: "860", label: "860: a purchase order change" },
            { value: "none", label: "None: a manual task in its portal" },
          ]}
          hint="How a cancellation of lines the supplier has reaches it"
        />
      </div>
      <CheckboxGroup
        name="ft_x12_sends_back"
        label={X12_LABELS.sends_back}
        checked={Array.isArray(sends) ? sends : sends ? [sends] : []}
        errors={errors}
        options={X12_SETS_BACK.map((s) => ({ value: s, label: SET_NAMES[s] }))}
        hint="A set not ticked is refused when it comes; we answer each one we read with our own 997"
      />
    </fieldset>
  );
}
