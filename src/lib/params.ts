// Path and paging parameters shared by the resource routers.
import { z } from "@hono/zod-openapi";
import { pageParam } from "./pagination";

/** A numeric id in the path; anything else is simply not found. */
export const IdParam = z.object({ id: z.string().openapi({ example: "1" }) });

export function parseId(raw: string): number | null {
  return /^\d{1,15}$/.test(raw) ? Number(raw) : null;
}

export const PageQuery = z.object({
  page: z.string().optional(),
  per_page: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return 50;
      if (!/^\s*\d+\s*$/.test(v) || Number(v) < 1) {
        ctx.addIssue({ code: "custom", message: "The :attribute field must be an integer of at least 1." });
        return z.NEVER;
      }
      return Math.min(Number(v), 100);
    }),
});

export function pageRequest(q: z.output<typeof PageQuery>) {
  return { page: pageParam(q.page), perPage: q.per_page };
}
