// An adapter's fields described once, on its zod schema: each field carries its label, its hint
// and whether it is secret (zod's own metadata, `.meta()`), and a form is derived from the schema
// (the field's kind from its type: a number, a choice of an enum's values, yes or no, text). The
// console renders these, so a new channel or platform brings its form with its schema.
import { z } from "zod";

/** What a field says about itself; `options` labels an enum's values (or a boolean's "true"/"false"). */
export type FieldMeta = {
  label: string;
  hint?: string;
  /** A credential or password: shown as a password input, never shown back. */
  secret?: boolean;
  /** The input for a text: an address ("url", "email") or plain text. */
  input?: "text" | "url" | "email";
  options?: Record<string, string>;
};

/** A schema with its field's description attached. */
export const described = <T extends z.ZodType>(schema: T, meta: FieldMeta): T => schema.meta(meta);

export type DescribedField = {
  key: string;
  label: string;
  hint?: string;
  secret: boolean;
  required: boolean;
  /** `nested`: an object of fields of its own (a form of its own renders it). */
  kind: "text" | "url" | "email" | "number" | "choice" | "nested";
  options?: { value: string; label: string }[];
  /** It may be null: a blank field sets null (else a blank field is left out). */
  clearable: boolean;
};

const isWrapper = (s: z.ZodType): s is z.ZodOptional | z.ZodDefault | z.ZodNullable =>
  s instanceof z.ZodOptional || s instanceof z.ZodDefault || s instanceof z.ZodNullable;

/** The field's description, found on the schema or on any of its optional, default or nullable wrappers. */
function metaOf(schema: z.ZodType): FieldMeta | undefined {
  let at: z.ZodType = schema;
  for (;;) {
    const meta = at.meta() as FieldMeta | undefined;
    if (meta?.label) return meta;
    if (!isWrapper(at)) return undefined;
    at = at.unwrap() as z.ZodType;
  }
}

/** The fields of an object schema that describe themselves, in the schema's order. */
export function describedFields(schema: z.ZodObject): DescribedField[] {
  const out: DescribedField[] = [];
  for (const [key, field] of Object.entries(schema.shape as Record<string, z.ZodType>)) {
    const meta = metaOf(field);
    if (!meta) continue;
    let inner: z.ZodType = field;
    let clearable = false;
    let required = true;
    while (isWrapper(inner)) {
      if (inner instanceof z.ZodNullable) clearable = true;
      else required = false;
      inner = inner.unwrap() as z.ZodType;
    }
    const labelled = (values: string[]) => values.map((value) => ({ value, label: meta.options?.[value] ?? value }));
    const kind: DescribedField["kind"] =
      inner instanceof z.ZodNumber
        ? "number"
        : inner instanceof z.ZodEnum || inner instanceof z.ZodBoolean
          ? "choice"
          : inner instanceof z.ZodObject
            ? "nested"
            : (meta.input ?? "text");
    const options =
      inner instanceof z.ZodEnum ? labelled((inner.options as unknown[]).map(String)) : inner instanceof z.ZodBoolean ? labelled(["true", "false"]) : undefined;
    out.push({ key, label: meta.label, hint: meta.hint, secret: meta.secret ?? false, required, kind, clearable, ...(options && { options }) });
  }
  return out;
}
