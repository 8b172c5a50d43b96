// HTTP contract of /api/v1/api-keys: the account's own API keys (list, create, revoke), so a shop's
// developer and the console do the same thing without the operator.
import { createRoute, z } from "@hono/zod-openapi";
import { ApiKeyBody, ApiKeyResponse } from "./api-keys.schemas";
import { resourcePage } from "../lib/pagination";
import { IdParam, idOrNotFound, PageQuery, pageRequest, resourcePageOf } from "../lib/params";
import { apiSecurity, createRouter, errorResponse, errorResponses, responses } from "../lib/router";
import { createApiKey, listApiKeys, revokeApiKey } from "./accounts.service";
import { presentApiKey, presentNewApiKey } from "./api-keys.present";

export const apiKeysRouter = createRouter();

const tags = ["Account"];

const ApiKeyJson = z
  .object({
    id: z.number().int(),
    name: z.string().nullable(),
    prefix: z.string().openapi({ description: "The key's first characters, to tell keys apart (the secret is never shown again)" }),
    state: z.enum(["active", "expired", "revoked"]),
    current: z.boolean().openapi({ description: "true for the key this request was made with" }),
    expires_at: z.string().nullable(),
    last_used_at: z.string().nullable().openapi({ description: "Refreshed at most once an hour" }),
    revoked_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("ApiKey");

apiKeysRouter.openapi(
  createRoute({
    method: "get",
    path: "/api-keys",
    tags,
    summary: "List the account's API keys, newest first (revoked and expired ones too)",
    description: "Each key with its prefix, name, state, expiry and when it was last used; never the secret.",
    security: apiSecurity,
    request: { query: PageQuery },
    responses: { 200: responses.json(resourcePageOf(ApiKeyJson, "ApiKeyPage"), "A page of keys"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const page = pageRequest(c.req.valid("query"));
    const { id, apiKeyId } = c.get("account");
    const { total, rows } = await listApiKeys(c.get("db"), id, page);
    return c.json(resourcePage(c.req.url, page, total, rows.map((k) => presentApiKey(k, apiKeyId))), 200);
  },
);

apiKeysRouter.openapi(
  createRoute({
    method: "post",
    path: "/api-keys",
    tags,
    summary: "Create an API key for the account (the secret is shown once)",
    description: "A new oik_… key, shown only in this answer (it is stored as a digest). Send it as the api-key header with the account id as account-id.",
    security: apiSecurity,
    request: { body: { content: { "application/json": { schema: ApiKeyBody } }, required: true } },
    responses: { 201: responses.json(ApiKeyResponse, "The key, with its secret"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => c.json(presentNewApiKey(await createApiKey(c.get("db"), c.get("account").id, c.req.valid("json"))), 201),
);

apiKeysRouter.openapi(
  createRoute({
    method: "delete",
    path: "/api-keys/{id}",
    tags,
    summary: "Revoke one of the account's API keys at once",
    description:
      "The key stops working with the next request, and the console sessions signed in with it end at once. A key may revoke itself " +
      "(this request still succeeds; the next one is refused). The account's last live key cannot be revoked: create another first (409). " +
      "Revoking a revoked key changes nothing (204).",
    security: apiSecurity,
    request: { params: IdParam },
    responses: {
      204: { description: "Revoked" },
      404: responses.notFound,
      409: errorResponse(409, "The account's last live key", {
        message: "Conflict",
        error: "This is the account's last live API key: create another key first, then revoke this one.",
      }),
      ...errorResponses,
    },
  }),
  async (c) => {
    await revokeApiKey(c.get("db"), idOrNotFound(c.req.valid("param").id, "API key"), c.get("account").id);
    return c.body(null, 204);
  },
);
