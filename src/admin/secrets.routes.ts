// The operator's re-seal after a SECRETS_KEY rotation (docs/operations.md, "Rotating SECRETS_KEY"):
// every shop connection's credentials, on every shard, sealed again under the current key, so that
// SECRETS_KEY_PREVIOUS can be removed. `npm run admin -- reseal` calls it until it is done.
import { createRoute, z } from "@hono/zod-openapi";
import { createDb } from "../db";
import { field } from "../lib/validation";
import { createRouter, errorResponse, jsonBody, responses } from "../lib/router";
import { shardBinding, shardNumbers } from "../shards/shards";
import { connectionKeys, resealConnections } from "../shops/connections.service";
import { adminErrors, adminSecurity } from "./admin.routes";

export const secretsAdminRouter = createRouter();

/** Rows read per page, and pages per call: well inside D1's 1,000 statements per invocation. */
const PAGE_ROWS = 100;
const PAGES_PER_CALL = 20;

const ResealBody = z
  .object({
    shard: field.optionalInt({ min: 0, max: 255 }).openapi({ description: "Where to go on: the shard of the previous answer's next (0 to start)." }),
    after_id: field.optionalInt({ min: 0 }).openapi({ description: "Where to go on: the after_id of the previous answer's next (0 to start)." }),
  })
  .openapi("ResealRequest", { example: {} });

const ResealResponse = z
  .object({
    resealed: z.number().int().openapi({ description: "Credentials sealed again under SECRETS_KEY by this call" }),
    already_current: z.number().int().openapi({ description: "Credentials already sealed under SECRETS_KEY, left as they are" }),
    unopenable: z
      .array(z.object({ shard: z.number().int(), id: z.number().int() }))
      .openapi({ description: "Shop connections whose credentials neither key opens: the shop must enter them again (PATCH credentials)" }),
    done: z.boolean().openapi({ description: "Every shard went through; false: call again with next" }),
    next: z.object({ shard: z.number().int(), after_id: z.number().int() }).nullable().openapi({ description: "Where the next call goes on" }),
  })
  .openapi("ResealState");

secretsAdminRouter.openapi(
  createRoute({
    method: "post",
    path: "/secrets/reseal",
    tags: ["Admin"],
    summary: "Re-seal every shop connection's credentials under the current SECRETS_KEY (call again until done)",
    description:
      "After a rotation (the new key as SECRETS_KEY, the old one as SECRETS_KEY_PREVIOUS), opens every credential sealed under the previous " +
      "key and seals it under the current one, shard by shard. Each call does a bounded part; pass its next back until done is true. " +
      "Then SECRETS_KEY_PREVIOUS can be removed. Running it again changes nothing.",
    security: adminSecurity,
    request: jsonBody(ResealBody),
    responses: {
      200: responses.json(ResealResponse, "What this call re-sealed, and where the next one goes on"),
      503: errorResponse(503, "SECRETS_KEY is not set on this Worker", {
        message: "Service Unavailable",
        error: 'SECRETS_KEY is not set: this Worker cannot keep credentials (docs/operations.md, "Secrets")',
      }),
      ...adminErrors,
    },
  }),
  async (c) => {
    const keys = connectionKeys(c.env);
    const body = c.req.valid("json");
    const shards = shardNumbers(c.env).filter((n) => n >= (body.shard ?? 0));
    const answer = { resealed: 0, already_current: 0, unopenable: [] as { shard: number; id: number }[] };
    let afterId = body.after_id ?? 0;
    let pages = 0;
    for (const shard of shards) {
      const db = createDb(shardBinding(c.env, shard));
      for (;;) {
        if (pages++ === PAGES_PER_CALL) return c.json({ ...answer, done: false, next: { shard, after_id: afterId } }, 200);
        const page = await resealConnections(db, keys, afterId, PAGE_ROWS);
        answer.resealed += page.resealed;
        answer.already_current += page.alreadyCurrent;
        answer.unopenable.push(...page.unopenable.map((id) => ({ shard, id })));
        if (page.lastId === null) break;
        afterId = page.lastId;
      }
      afterId = 0;
    }
    return c.json({ ...answer, done: true, next: null }, 200);
  },
);
