// The products list's query: the API and the console's catalogue page both validate with it.
import { z } from "@hono/zod-openapi";
import { pageQueryParam } from "../lib/params";
import { booleanParam, dateParam, idParam, textParam } from "./params.schemas";

export const ListProductsQuery = z.object({
  page: pageQueryParam,
  sku: textParam(255).openapi({ description: "Products with exactly this SKU (case-sensitive)." }),
  ean13: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === "") return undefined;
      if (!/^\d{8,14}$/.test(v.trim())) {
        ctx.addIssue({ code: "custom", message: "The :attribute field must be 8 to 14 digits." });
        return z.NEVER;
      }
      return v.trim();
    })
    .openapi({ type: "string", description: "Products with exactly this EAN/GTIN, 8 to 14 digits, leading zeros included." }),
  product_feed_id: idParam.openapi({ description: "The products of this feed of the account." }),
  active: booleanParam.openapi({ description: "true: only active products; false: only those an import deactivated; absent: both." }),
  updated_since: dateParam.openapi({ description: "Products whose values changed at or after this ISO 8601 date or date-time." }),
  search: textParam(255).openapi({ description: "Products whose name contains this text (case-insensitive for ASCII; % and _ are literal)." }),
});

