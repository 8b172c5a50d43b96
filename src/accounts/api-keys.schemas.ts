// The API-key contract: the body of a new key (the operator's API, the shop's own keys and both console pages validate with it) and the answer that shows its secret once.
import { z } from "@hono/zod-openapi";
import { parseIsoFilter } from "../lib/time";
import { field } from "../lib/validation";

export const ApiKeyBody = z
  .object({
    name: field.optionalText(255).openapi({ description: "A name for the key, e.g. the plugin that uses it." }),
    expires_at: z.preprocess(
      (v) => (v === "" || v === null ? undefined : v),
      z
        .string()
        .transform((value, ctx) => {
          const iso = parseIsoFilter(value);
          if (!iso) {
            ctx.addIssue({ code: "custom", message: "The :attribute field must be a valid ISO 8601 date." });
            return z.NEVER;
          }
          return iso;
        })
        .optional(),
    ).openapi({ description: "When the key stops working, as an ISO 8601 date-time. Left out: never." }),
  })
  .openapi("CreateApiKeyRequest", { example: { name: "woocommerce", expires_at: "2030-12-31T23:59:59Z" } });

export const ApiKeyResponse = z
  .object({
    id: z.number().int(),
    account_id: z.number().int(),
    name: z.string().nullable(),
    api_key: z.string().openapi({ description: "The secret. Shown only in this response." }),
    prefix: z.string(),
    expires_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("ApiKeyCreated");
