// The operator's archive command: POST /admin/v1/accounts/{id}/archive (docs/archive.md).
import { createRoute, z } from "@hono/zod-openapi";
import { sql } from "drizzle-orm";
import { rawBatch } from "../db";
import { ApiError } from "../lib/errors";
import { createRouter, ErrorBody, jsonBody, responses } from "../lib/router";
import { toAccountShard } from "../shards/accounts";
import { presentArchived } from "./archive.present";
import { archiveAccount, olderThan } from "./archive.service";

export const archiveAdminRouter = createRouter();

archiveAdminRouter.use("/accounts/:id/archive", async (c, next) => {
  const id = c.req.param("id");
  if (/^\d{1,15}$/.test(id)) await toAccountShard(c, Number(id));
  await next();
});

/** A century: anything older is the same as "everything". */
const MAX_DAYS = 36_500;

const ArchiveBody = z
  .object({
    older_than_days: z
      .number()
      .int()
      .min(0)
      .max(MAX_DAYS)
      .openapi({ description: "Archive the account's finished orders created more than this many days ago; 0: every finished order." }),
  })
  .openapi("ArchiveAccountRequest", { example: { older_than_days: 90 } });

const ArchiveResponse = z
  .object({
    archived: z.number().int().openapi({ description: "Orders archived by this call." }),
    bytes_freed: z.number().int().openapi({ description: "The size of their data (as JSON) that left D1; each keeps a stub of under 400 bytes." }),
    done: z.boolean().openapi({ description: "false: more finished orders of that age are left; call again." }),
  })
  .openapi("ArchiveRun");

archiveAdminRouter.openapi(
  createRoute({
    method: "post",
    path: "/accounts/{id}/archive",
    tags: ["Admin"],
    summary: "Archive an account's finished orders to R2 now (call again until done)",
    description:
      "Archives up to 100 of the account's finished orders older than older_than_days, oldest first, as the cron does with the account's " +
      "archive_after_days: each is written to R2 and read back before its rows leave D1, and an order that changed meanwhile stays. " +
      "Archived orders are still read by reference (GET /api/v1/orders/{reference}, with archived: true).",
    security: [{ AdminToken: [] }],
    request: { params: z.object({ id: z.string().regex(/^\d{1,15}$/).openapi({ example: "1", description: "The account's id." }) }), ...jsonBody(ArchiveBody) },
    responses: {
      200: responses.json(ArchiveResponse, "What this call archived"),
      404: responses.notFound,
      401: responses.json(ErrorBody, "Missing or wrong admin token"),
      422: responses.invalid,
    },
  }),
  async (c) => {
    const id = Number(c.req.valid("param").id);
    const db = c.get("db");
    const [found] = await rawBatch(db, [sql`SELECT 1 AS one FROM accounts WHERE id = ${id}`]);
    if (found.length === 0) throw ApiError.notFound(`Account with id '${id}' not found`);
    const run = await archiveAccount(db, c.env.ARCHIVE, id, olderThan(c.req.valid("json").older_than_days), presentArchived);
    return c.json({ archived: run.archived, bytes_freed: run.bytesFreed, done: run.done }, 200);
  },
);
