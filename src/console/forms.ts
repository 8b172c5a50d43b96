// What every console form handler needs between the request and the service: the posted fields,
// the API's validation errors (from the schema, or thrown by the service) in the fields' own
// labels, and the flash that tells the outcome on the page the browser is sent back to.
import type { Context } from "hono";
import type { AppEnv, Flash } from "../env";
import { ApiError, type ValidationErrors } from "../lib/errors";
import { setFlash } from "./cookies";

export type FormValues = Record<string, string | string[]>;

/**
 * The posted fields as strings (the CSRF field left out); `lists` names the fields that may repeat
 * (checkboxes), which always come back as arrays.
 */
export async function formFields(c: Context<AppEnv>, lists: string[] = []): Promise<FormValues> {
  const body = await c.req.parseBody({ all: true });
  const out: FormValues = {};
  for (const [key, raw] of Object.entries(body)) {
    if (key === "_csrf") continue;
    const values = (Array.isArray(raw) ? raw : [raw]).filter((v): v is string => typeof v === "string");
    out[key] = lists.includes(key) ? values : (values[values.length - 1] ?? "");
  }
  for (const key of lists) out[key] ??= [];
  return out;
}

export const text = (values: FormValues, key: string): string => {
  const v = values[key];
  return Array.isArray(v) ? (v[v.length - 1] ?? "") : (v ?? "");
};

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The API's messages name a field by its key ("The webhook_url field is required…"): a form says its label. */
export function relabel(errors: ValidationErrors, labels: Record<string, string>): ValidationErrors {
  return Object.fromEntries(
    Object.entries(errors).map(([key, messages]) => {
      const label = labels[key];
      return [key, label ? messages.map((m) => m.replace(new RegExp(`(?<![\\w.])${escape(key)}(?![\\w.])`), label)) : messages];
    }),
  );
}

/**
 * Runs a service call. A validation error (422) it throws comes back as the form's errors, in the
 * fields' labels, for the handler to show beside the fields; a refusal that concerns no field
 * (409) comes back as a form-level message. Anything else is thrown on to the error page.
 */
export async function attempt<T>(
  run: () => Promise<T>,
  labels: Record<string, string> = {},
): Promise<{ ok: true; value: T } | { ok: false; errors: ValidationErrors; message?: string }> {
  try {
    return { ok: true, value: await run() };
  } catch (error) {
    if (error instanceof ApiError && error.status === 422 && error.detail?.errors) return { ok: false, errors: relabel(error.detail.errors, labels) };
    if (error instanceof ApiError && error.status === 409) return { ok: false, errors: {}, message: error.detail?.error ?? error.message };
    throw error;
  }
}

/** POST/redirect/GET: the outcome in the flash, the browser sent to `to`. */
export function done(c: Context<AppEnv>, to: string, flash: Flash) {
  setFlash(c, flash);
  return c.redirect(to, 303);
}
