// Query parameters of the catalogue endpoints; a value that means nothing is a 422 naming the parameter.
import { z } from "@hono/zod-openapi";
import { parseIsoFilter } from "../lib/time";

const absent = (v: string | undefined): v is undefined => v === undefined || v.trim() === "";

export const booleanParam = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (absent(v)) return undefined;
    const s = v.trim().toLowerCase();
    if (s === "true" || s === "1") return true;
    if (s === "false" || s === "0") return false;
    ctx.addIssue({ code: "custom", message: "The :attribute field must be true or false." });
    return z.NEVER;
  })
  .openapi({ type: "string", enum: ["true", "false", "1", "0"] });

export const idParam = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (absent(v)) return undefined;
    if (!/^\s*\d{1,15}\s*$/.test(v)) {
      ctx.addIssue({ code: "custom", message: "The :attribute field must be an integer." });
      return z.NEVER;
    }
    return Number(v);
  })
  .openapi({ type: "string" });

export const dateParam = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (absent(v)) return undefined;
    const iso = parseIsoFilter(v);
    if (!iso) {
      ctx.addIssue({ code: "custom", message: "The :attribute field must be a valid ISO 8601 date." });
      return z.NEVER;
    }
    return iso;
  })
  .openapi({ type: "string", description: "ISO 8601 date or date-time" });

export const textParam = (max: number) =>
  z
    .string()
    .max(max)
    .optional()
    .transform((v) => (absent(v) ? undefined : v.trim()));
