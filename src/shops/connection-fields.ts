// What a connection's platform decides about its fields: the credentials it takes (every field, no
// other) and its settings (defaults applied), checked with the schemas the platform's adapter
// describes itself with (platforms/platform.ts). The API's schema and the service both use it, so a
// create names every failing field at once and a PATCH checks against the connection's own platform.
import { z } from "zod";
import type { ShopPlatformName } from "../db/schema/shops";
import { describedFields, type DescribedField } from "../lib/described-fields";
import type { ValidationErrors } from "../lib/errors";
import { toValidationErrors } from "../lib/validation";
import { isPlatform, platformFor } from "./platforms/index";

export { isPlatform };

/** A field's failure; `message` carries ":attribute" for the field's name (or its label in a form). */
export type FieldIssue = { path: string[]; message: string };

/** The credential fields a platform takes, in the order its schema lists them, each as it describes itself. */
export const credentialFields = (platform: ShopPlatformName): DescribedField[] => describedFields(platformFor(platform).credentials);

/** The settings fields the form shows (mode first); stock_sync and price_sync, objects with a form of their own, are not among them. */
export const settingFields = (platform: ShopPlatformName): DescribedField[] => describedFields(platformFor(platform).settings);

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * Checks `credentials` and `settings` (each only when given) against the platform: the issues, and
 * the parsed values (settings with their defaults). An unknown field is named by its own path
 * (credentials.api_key), with the fields the platform takes.
 */
export function checkPlatformFields(
  platform: ShopPlatformName,
  input: { credentials?: unknown; settings?: unknown },
): { issues: FieldIssue[]; credentials?: Record<string, string>; settings?: Record<string, unknown> } {
  const issues: FieldIssue[] = [];
  const out: { credentials?: Record<string, string>; settings?: Record<string, unknown> } = {};
  const parts = [
    ["credentials", platformFor(platform).credentials, input.credentials],
    ["settings", platformFor(platform).settings, input.settings],
  ] as const;
  for (const [part, schema, raw] of parts) {
    if (raw === undefined) continue;
    if (!isObject(raw)) {
      issues.push({ path: [part], message: raw === null && part === "credentials" ? "The :attribute field is required." : "The :attribute field must be an object." });
      continue;
    }
    const result = (schema as z.ZodType).safeParse(raw);
    if (result.success) {
      out[part] = result.data as never;
      continue;
    }
    const wrapped = { [part]: raw };
    const known = result.error.issues.filter((i) => i.code !== "unrecognized_keys");
    const errors = toValidationErrors(new z.ZodError(known.map((i) => ({ ...i, path: [part, ...i.path] }))), wrapped);
    for (const [key, messages] of Object.entries(errors)) {
      for (const m of messages) issues.push({ path: key.split("."), message: m.replace(key, ":attribute") });
    }
    for (const issue of result.error.issues) {
      if (issue.code !== "unrecognized_keys") continue;
      // A nested object's own fields (settings.stock_sync's) are named for a key unknown inside it.
      const takes = Object.keys(objectAt(schema as z.ZodObject, issue.path.map(String))?.shape ?? {}).join(", ");
      const owner = issue.path.length > 0 ? `${part}.${issue.path.join(".")}` : part;
      for (const key of issue.keys) {
        issues.push({ path: [part, ...issue.path.map(String), key], message: `The :attribute field is not one ${platform} takes; its ${owner === part ? part : `${owner} fields`} are ${takes}.` });
      }
    }
  }
  return { issues, ...out };
}

/** The object schema at a path of fields inside `schema` (through optional and default wrappers). */
function objectAt(schema: z.ZodObject, path: string[]): z.ZodObject | null {
  let at: z.ZodType | undefined = schema;
  for (const key of path) {
    while (at instanceof z.ZodOptional || at instanceof z.ZodDefault) at = at.unwrap() as z.ZodType;
    at = at instanceof z.ZodObject ? (at.shape as Record<string, z.ZodType>)[key] : undefined;
  }
  while (at instanceof z.ZodOptional || at instanceof z.ZodDefault) at = at.unwrap() as z.ZodType;
  return at instanceof z.ZodObject ? at : null;
}

/** The issues as our 422's errors, keyed by dotted path. */
export function issuesToErrors(issues: FieldIssue[]): ValidationErrors {
  const errors: ValidationErrors = {};
  for (const { path, message } of issues) {
    const key = path.join(".");
    const list = (errors[key] ??= []);
    const text = message.replace(":attribute", key);
    if (!list.includes(text)) list.push(text);
  }
  return errors;
}
