// The operator's API (/admin/v1), behind Authorization: Bearer <ADMIN_TOKEN>.
import { createRoute, z } from "@hono/zod-openapi";
import { createAccount, createApiKey, listAccounts, listApiKeys, revokeApiKey } from "../accounts/accounts.service";
import { presentNewAccount, presentNewApiKey } from "../accounts/api-keys.present";
import { revokeSupplierKey } from "../suppliers/suppliers.service";
import { listAccountsEverywhere, openAccount, revokeApiKeyAnywhere, revokeSupplierKeyAnywhere, toAccountShard } from "../shards/accounts";
import { moveAccount } from "../shards/move";
import { deleteAccount } from "../shards/delete";
import { deletionHooks } from "../accounts/deletion.service";
import { presentMove } from "./moves.present";
import { presentDeletion } from "./deletions.present";
import type { ApiKey } from "../db/schema";
import { resourcePage } from "../lib/pagination";
import { PageQuery, pageRequest, resourcePageOf } from "../lib/params";
import { createRouter, ErrorBody, errorResponse, responses } from "../lib/router";
import { ApiKeyBody, ApiKeyResponse } from "../accounts/api-keys.schemas";
import { AccountBody } from "./admin.schemas";

export const adminRouter = createRouter();

// An account's own paths run on its shard.
adminRouter.use("/accounts/:id/*", async (c, next) => {
  const id = c.req.param("id");
  if (/^\d{1,15}$/.test(id)) await toAccountShard(c, Number(id));
  await next();
});

export const adminErrors = {
  401: responses.json(ErrorBody, "Missing or wrong admin token"),
  422: responses.invalid,
};
export const adminSecurity = [{ AdminToken: [] }];
const idParam = (name: string, description: string) =>
  z.object({ [name]: z.string().regex(/^\d{1,15}$/).openapi({ example: "1", description }) }) as z.ZodObject<
    Record<string, z.ZodString>
  >;

const AccountResponse = z
  .object({
    id: z.number().int(),
    name: z.string(),
    created_at: z.string(),
    shard: z.number().int().openapi({ description: "The shard the account lives on." }),
  })
  .openapi("AccountCreated");

adminRouter.openapi(
  createRoute({
    method: "post",
    path: "/accounts",
    tags: ["Admin"],
    summary: "Create an account",
    description:
      "An account is one shop (the spec's user or project): its orders, suppliers, rules, feeds and webhooks are its own. Then issue " +
      "it an API key (POST /admin/v1/accounts/{id}/api-keys); its id is the account-id header.",
    security: adminSecurity,
    request: { body: { content: { "application/json": { schema: AccountBody } }, required: true } },
    responses: {
      201: responses.json(AccountResponse, "The new account"),
      409: errorResponse(409, "Every account id is given out (ids go up to 2^22 - 1; docs/operations.md, Shards)", {
        message: "Conflict",
        error: "No account id is left: account ids go up to 4194303 (2^22 - 1; the order search packs them into its index), and the directory has minted them all.",
      }),
      ...adminErrors,
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const { account, shard } = await openAccount(c, body.shard, (db, accountId) => createAccount(db, body.name, accountId));
    return c.json(presentNewAccount(account, shard), 201);
  },
);

const AccountItem = z
  .object({
    id: z.number().int(),
    name: z.string(),
    created_at: z.string(),
    active_api_keys: z.number().int().openapi({ description: "Keys neither revoked nor expired" }),
    shard: z.number().int().openapi({ description: "The shard the account lives on." }),
  })
  .openapi("AccountListItem");

adminRouter.openapi(
  createRoute({
    method: "get",
    path: "/accounts",
    tags: ["Admin"],
    summary: "List accounts, ids ascending (page, per_page up to 100)",
    description: "Every account with its id (the account-id header of its keys) and how many of its API keys are live (neither revoked nor expired).",
    security: adminSecurity,
    request: { query: PageQuery },
    responses: { 200: responses.json(resourcePageOf(AccountItem, "AccountPage"), "A page of accounts"), ...adminErrors },
  }),
  async (c) => {
    const page = pageRequest(c.req.valid("query"));
    const { total, rows } = await listAccountsEverywhere(c.env, page, listAccounts);
    const data = rows.map((a) => ({ id: a.id, name: a.name, created_at: a.createdAt, active_api_keys: a.activeApiKeys, shard: a.shard }));
    return c.json(resourcePage(c.req.url, page, total, data), 200);
  },
);

adminRouter.openapi(
  createRoute({
    method: "post",
    path: "/accounts/{id}/api-keys",
    tags: ["Admin"],
    summary: "Issue an API key for an account (the secret is shown once)",
    description:
      "A new oik_… key for the account, shown only in this answer (it is stored as a digest). The shop sends it as the api-key header " +
      "with the account id as account-id.",
    security: adminSecurity,
    request: {
      params: idParam("id", "The account's id."),
      body: { content: { "application/json": { schema: ApiKeyBody } }, required: true },
    },
    responses: { 201: responses.json(ApiKeyResponse, "The key"), 404: responses.notFound, ...adminErrors },
  }),
  async (c) => {
    const body = c.req.valid("json");
    const key = await createApiKey(c.get("db"), Number(c.req.valid("param").id), body);
    return c.json(presentNewApiKey(key), 201);
  },
);

const MoveBody = z
  .object({
    shard: z.number().int().min(0).openapi({ description: "The shard the account goes to (0 is DB, n is SHARD_n)." }),
    pause_after: z
      .enum(["freeze", "copy", "switch"])
      .optional()
      .openapi({ description: "Stop once this phase has finished (to look at the account between phases); the next call goes on." }),
  })
  .openapi("MoveAccountRequest", { example: { shard: 1 } });
const MoveResponse = z
  .object({
    account_id: z.number().int(),
    from_shard: z.number().int(),
    to_shard: z.number().int(),
    phase: z.enum(["freeze", "copy", "switch", "delete", "done"]),
    done: z.boolean().openapi({ description: "false: call again (the same body) to go on." }),
    rows_copied: z.number().int(),
    rows_deleted: z.number().int(),
    started_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .openapi("MoveState");

adminRouter.openapi(
  createRoute({
    method: "post",
    path: "/accounts/{id}/move",
    tags: ["Admin"],
    summary: "Move an account to another shard (call again until done)",
    description:
      "Freezes the account's writes (its API answers 503 with Retry-After meanwhile; reads go on), copies its rows to the shard, " +
      "switches the directory and deletes the old rows. Each call does a bounded part and answers where the move stands; the move's " +
      "phase and cursor live in the directory, so calling again after a crash continues it. Ids and references stay as they are.",
    security: adminSecurity,
    request: { params: idParam("id", "The account's id."), body: { content: { "application/json": { schema: MoveBody } }, required: true } },
    responses: {
      200: responses.json(MoveResponse, "Where the move stands"),
      404: responses.notFound,
      409: errorResponse(
        409,
        "The account is on that shard already, or moving to another, or the move would need a new id block and every spare one (64 to 255) is given out (nothing is changed)",
        { message: "Conflict", error: "Account 7 is on shard 1 already." },
      ),
      ...adminErrors,
    },
  }),
  async (c) => {
    const body = c.req.valid("json");
    return c.json(presentMove(await moveAccount(c.env, Number(c.req.valid("param").id), body.shard, body.pause_after)), 200);
  },
);

const DeleteQuery = z.object({
  force: z
    .enum(["true", "false"])
    .optional()
    .openapi({ description: "true: delete even though orders, returns or supplier sends are still open (the answer's open_work records them)." }),
});
const OpenWorkSchema = z
  .object({
    orders: z.number().int().openapi({ description: "Orders not finished (counted up to 1,000)." }),
    returns: z.number().int().openapi({ description: "Returns not ended (counted up to 1,000)." }),
    sends: z.array(z.object({ supplier_id: z.number().int(), supplier_name: z.string(), dispatches: z.number().int() })).openapi({
      description: "Per supplier, sends of open orders still waiting for its answer: the operator tells these suppliers.",
    }),
  })
  .openapi("OpenWork");
const DeletionResponse = z
  .object({
    account_id: z.number().int(),
    shard: z.number().int(),
    phase: z.enum(["stop", "rows", "archive", "directory", "done"]),
    done: z.boolean().openapi({ description: "false: call again (the same way) to go on." }),
    rows_deleted: z.number().int(),
    objects_deleted: z.number().int().openapi({ description: "Archived orders' objects deleted from R2." }),
    open_work: OpenWorkSchema.openapi({ description: "What was still open when the deletion started." }),
    started_at: z.string(),
    finished_at: z.string().nullable(),
  })
  .openapi("DeletionState");

adminRouter.openapi(
  createRoute({
    method: "delete",
    path: "/accounts/{id}",
    tags: ["Admin"],
    summary: "Delete an account with everything it holds (call again until done)",
    description:
      "The account stops with the first call: its API keys and supplier keys answer 401, its console sessions end, and nothing more is " +
      "sent to its suppliers, its shop or its webhooks. Then its rows are deleted from its shard, its archived orders from R2, and its " +
      "directory entries. Each call does a bounded part and answers where the deletion stands; calling again after a crash continues " +
      "it, and once done answers the finished deletion. Refused while orders, returns or supplier sends are open, unless force=true.",
    security: adminSecurity,
    request: { params: idParam("id", "The account's id."), query: DeleteQuery },
    responses: {
      200: responses.json(DeletionResponse, "Where the deletion stands"),
      404: responses.notFound,
      409: errorResponse(409, "The account is moving between shards, or has open work and force=true was not given (nothing is changed)", {
        message: "Conflict",
        error: "Account 7 still has work under way: 2 open orders, 1 send awaiting an answer from supplier 12 (Acme). Nothing was deleted; delete it with force to give that work up.",
      }),
      ...adminErrors,
    },
  }),
  async (c) => {
    const force = c.req.valid("query").force === "true";
    return c.json(presentDeletion(await deleteAccount(c.env, Number(c.req.valid("param").id), force, deletionHooks(c.env.ARCHIVE))), 200);
  },
);

const ApiKeyItem = z
  .object({
    id: z.number().int(),
    account_id: z.number().int(),
    name: z.string().nullable(),
    prefix: z.string().openapi({ description: "The secret's first characters, to tell keys apart (the secret itself is never stored)" }),
    created_at: z.string(),
    last_used_at: z.string().nullable().openapi({ description: "Refreshed at most once an hour" }),
    expires_at: z.string().nullable(),
    revoked_at: z.string().nullable(),
  })
  .openapi("ApiKeyListItem");

export const presentApiKey = (k: ApiKey) => ({
  id: k.id,
  account_id: k.accountId,
  name: k.name,
  prefix: k.prefix,
  created_at: k.createdAt,
  last_used_at: k.lastUsedAt,
  expires_at: k.expiresAt,
  revoked_at: k.revokedAt,
});

adminRouter.openapi(
  createRoute({
    method: "get",
    path: "/accounts/{id}/api-keys",
    tags: ["Admin"],
    summary: "List an account's API keys, newest first (page, per_page up to 100)",
    description:
      "Every key of the account, live or not: its prefix and name, when it was last used, when it expires and when it was revoked. " +
      "The secret is never shown again. `npm run admin -- keys:list <account-id>` and the operator console show the same.",
    security: adminSecurity,
    request: {
      params: idParam("id", "The account's id."),
      query: PageQuery,
    },
    responses: { 200: responses.json(resourcePageOf(ApiKeyItem, "ApiKeyPage"), "A page of API keys"), 404: responses.notFound, ...adminErrors },
  }),
  async (c) => {
    const page = pageRequest(c.req.valid("query"));
    const { total, rows } = await listApiKeys(c.get("db"), Number(c.req.valid("param").id), page);
    return c.json(resourcePage(c.req.url, page, total, rows.map(presentApiKey)), 200);
  },
);

adminRouter.openapi(
  createRoute({
    method: "delete",
    path: "/api-keys/{id}",
    tags: ["Admin"],
    summary: "Revoke an API key at once",
    description: "The key stops working with the next request.",
    security: adminSecurity,
    request: { params: idParam("id", "The key's id, as its create answer shows it.") },
    responses: { 204: { description: "Revoked" }, 404: responses.notFound, ...adminErrors },
  }),
  async (c) => {
    const keyId = Number(c.req.valid("param").id);
    await revokeApiKeyAnywhere(c.env, keyId, (db, now) => revokeApiKey(db, keyId, undefined, now));
    return c.body(null, 204);
  },
);

adminRouter.openapi(
  createRoute({
    method: "delete",
    path: "/supplier-keys/{id}",
    tags: ["Admin"],
    summary: "Revoke a supplier key at once",
    description:
      "The key stops working with the next request, on whichever shard its account lives, in every phase of a move too (the shop's own " +
      "revoke, DELETE /api/v1/suppliers/{id}/keys/{keyId}, waits while its account is frozen for a move).",
    security: adminSecurity,
    request: { params: idParam("id", "The supplier key's id, as its create answer shows it.") },
    responses: { 204: { description: "Revoked" }, 404: responses.notFound, ...adminErrors },
  }),
  async (c) => {
    const keyId = Number(c.req.valid("param").id);
    await revokeSupplierKeyAnywhere(c.env, keyId, (db, key, now) => revokeSupplierKey(db, key.accountId, key.supplierId, keyId, now));
    return c.body(null, 204);
  },
);

