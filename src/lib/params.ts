// Path and paging parameters shared by the resource routers, and the paginated response schema.
import { z } from "@hono/zod-openapi";
import { ApiError } from "./errors";
import { pageParam } from "./pagination";

/** A numeric id in the path; anything else is simply not found. */
export const IdParam = z.object({
  id: z.string().openapi({ example: "1", description: "The resource's id, as its create or list answer shows it. Another account's id is not found." }),
});

export function parseId(raw: string): number | null {
  return /^\d{1,15}$/.test(raw) ? Number(raw) : null;
}

/** The id in the path, or the 404 of `<label> with id '<raw>' not found` (a malformed id is simply unknown). */
export function idOrNotFound(raw: string, label: string): number {
  const id = parseId(raw);
  if (id === null) throw ApiError.notFound(`${label} with id '${raw}' not found`);
  return id;
}

/** per_page: default 50, values above 100 capped at 100; not a positive integer is a 422. */
export const perPageParam = z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return 50;
      if (!/^\s*\d+\s*$/.test(v) || Number(v) < 1) {
        ctx.addIssue({ code: "custom", message: "The :attribute field must be an integer of at least 1." });
        return z.NEVER;
      }
      return Math.min(Number(v), 100);
    })
    .openapi({ type: "integer", minimum: 1, default: 50, description: "Items per page: 50 unless given; values above 100 are read as 100." });

/** page: from 1; below 1 or not a number is page 1, as in Laravel (pageParam). */
export const pageQueryParam = z
  .string()
  .optional()
  .openapi({ type: "integer", minimum: 1, default: 1, description: "The page, from 1; a page past the last answers an empty data list." });

export const PageQuery = z.object({ page: pageQueryParam, per_page: perPageParam });

export function pageRequest(q: z.output<typeof PageQuery>) {
  return { page: pageParam(q.page), perPage: q.per_page };
}

/** A page in Laravel's API-resource shape (see resourcePage in pagination.ts). */
export function resourcePageOf<T extends z.ZodType>(item: T, name: string) {
  return z
    .object({
      current_page: z.number().int(),
      data: z.array(item),
      links: z.object({ first: z.string(), last: z.string(), prev: z.string().nullable(), next: z.string().nullable() }),
      meta: z.object({
        current_page: z.number().int(),
        from: z.number().int().nullable(),
        last_page: z.number().int(),
        path: z.string(),
        per_page: z.number().int(),
        to: z.number().int().nullable(),
        total: z.number().int(),
      }),
    })
    .openapi(name);
}
