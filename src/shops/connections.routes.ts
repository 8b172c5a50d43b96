// HTTP contract of /api/v1/shop-connections: the shop's own REST API that shipments, tracking and
// line outcomes are written back into; its credentials never shown again; testing it.
import { createRoute, z } from "@hono/zod-openapi";
import { SHOP_PLATFORMS } from "../db/schema/shops";
import { resourcePage } from "../lib/pagination";
import { IdParam, idOrNotFound, PageQuery, pageRequest } from "../lib/params";
import { apiSecurity, createRouter, errorResponse, errorResponses, jsonBody, responses } from "../lib/router";
import { CreateShopConnection, UpdateShopConnection } from "./connections.schemas";
import { presentConnection } from "./connections.present";
import { createConnection, deleteConnection, getConnection, listConnections, testConnection, updateConnection } from "./connections.service";

export const shopConnectionsRouter = createRouter();

const ConnectionJson = z
  .object({
    id: z.number().int(),
    platform: z.enum(SHOP_PLATFORMS),
    name: z.string(),
    base_url: z.string().openapi({ description: "Without a trailing slash" }),
    credentials: z
      .record(z.string(), z.string())
      .openapi({ description: "Each credential field's masked hint (its last characters at most), never the credential itself" }),
    sources: z.array(z.string()).nullable().openapi({ description: "The order sources served; null: every order of the account" }),
    settings: z.record(z.string(), z.unknown()).openapi({ description: "The platform's settings, every one with its value (defaults filled in), mode among them" }),
    active: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("ShopConnection", {
    example: {
      id: 3,
      platform: "woocommerce",
      name: "Our WooCommerce shop",
      base_url: "https://shop.example.com",
      credentials: { consumer_key: "…9c8d", consumer_secret: "…8a9b" },
      sources: ["shop.example.com"],
      settings: { mode: "dry_run", complete_status: "completed", tracking: "auto" },
      active: true,
      created_at: "2026-11-25T21:40:00.000000Z",
      updated_at: "2026-11-25T21:40:00.000000Z",
    },
  });

const CheckJson = z
  .object({ name: z.string(), ok: z.boolean(), message: z.string().openapi({ description: "What is right or wrong, in words" }) })
  .openapi("ShopConnectionCheck");
const TestJson = z
  .object({ ok: z.boolean().openapi({ description: "Every check passed" }), checks: z.array(CheckJson) })
  .openapi("ShopConnectionTest", {
    example: {
      ok: false,
      checks: [
        { name: "connection", ok: true, message: "Reached https://shop.example.com: the shop's server answered." },
        { name: "reachable", ok: true, message: "https://shop.example.com answers with WooCommerce's REST API (wc/v3)." },
        {
          name: "credentials",
          ok: false,
          message: "The shop does not know this consumer key: copy it again from WooCommerce > Settings > Advanced > REST API (or create a new key).",
        },
        { name: "write", ok: false, message: "Not checked: the credentials are not accepted." },
        { name: "tracking", ok: true, message: "The Shipment Tracking extension is installed: tracking numbers are added to it." },
      ],
    },
  });

const unavailable = errorResponse(503, "SECRETS_KEY is not set on this Worker: no credential can be kept or used", {
  message: "Service Unavailable",
  error: 'SECRETS_KEY is not set: this Worker cannot keep credentials (docs/operations.md, "Secrets")',
});

const tags = ["Shop connections"];
const idOf = (raw: string) => idOrNotFound(raw, "Shop connection");

shopConnectionsRouter.openapi(
  createRoute({
    method: "post",
    path: "/shop-connections",
    tags,
    summary: "Connect the shop's own REST API (WooCommerce, Shopware, Magento, PrestaShop) for write-backs",
    description:
      "Shipments, tracking and line outcomes of the account's orders (those whose source is in sources, or all) are written back into the shop " +
      "through its REST API. The credentials are encrypted at once and never shown again: the answer and every read show a masked hint of each. " +
      "settings.mode dry_run records the writes instead of making them. Test the connection with POST /api/v1/shop-connections/{id}/test.",
    security: apiSecurity,
    request: jsonBody(CreateShopConnection),
    responses: { 201: responses.json(ConnectionJson, "The connection, with its credentials' hints"), 422: responses.invalid, 503: unavailable, ...errorResponses },
  }),
  async (c) => {
    const row = await createConnection(c.get("db"), c.env, c.get("account").id, c.req.valid("json"), new URL(c.req.url).origin);
    return c.json(presentConnection(row), 201);
  },
);

shopConnectionsRouter.openapi(
  createRoute({
    method: "get",
    path: "/shop-connections",
    tags,
    summary: "List shop connections (oldest first)",
    description: "The account's connections, deleted ones left out, with their credentials' hints only; paginated like the order list.",
    security: apiSecurity,
    request: { query: PageQuery },
    responses: { 200: responses.json(z.object({ data: z.array(ConnectionJson) }).passthrough(), "A page of connections"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const page = pageRequest(c.req.valid("query"));
    const { total, rows } = await listConnections(c.get("db"), c.get("account").id, page);
    return c.json(resourcePage(c.req.url, page, total, rows.map(presentConnection)), 200);
  },
);

shopConnectionsRouter.openapi(
  createRoute({
    method: "get",
    path: "/shop-connections/{id}",
    tags,
    summary: "Fetch a shop connection",
    description: "One connection of the account, with its credentials' hints; a deleted one, or another account's, is not found.",
    security: apiSecurity,
    request: { params: IdParam },
    responses: { 200: responses.json(ConnectionJson, "The connection"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => c.json(presentConnection(await getConnection(c.get("db"), c.get("account").id, idOf(c.req.valid("param").id))), 200),
);

shopConnectionsRouter.openapi(
  createRoute({
    method: "patch",
    path: "/shop-connections/{id}",
    tags,
    summary: "Update a shop connection (only the fields sent); replace its credentials; pause it with active=false",
    description:
      "Changes only the fields sent. credentials replace the old ones and must be every field of the connection's platform; settings sent are " +
      "laid over the stored ones; sources null serves every order. The platform cannot be changed (422). active=false pauses the connection: " +
      "nothing is written to the shop until it is true again.",
    security: apiSecurity,
    request: { params: IdParam, ...jsonBody(UpdateShopConnection) },
    responses: { 200: responses.json(ConnectionJson, "The connection"), 404: responses.notFound, 422: responses.invalid, 503: unavailable, ...errorResponses },
  }),
  async (c) => {
    const row = await updateConnection(c.get("db"), c.env, c.get("pipeline"), c.get("account").id, idOf(c.req.valid("param").id), c.req.valid("json"));
    return c.json(presentConnection(row), 200);
  },
);

shopConnectionsRouter.openapi(
  createRoute({
    method: "delete",
    path: "/shop-connections/{id}",
    tags,
    summary: "Delete a shop connection",
    description:
      "From now on nothing is written through the connection and it is gone from lists and reads; its write-backs' history still names it.",
    security: apiSecurity,
    request: { params: IdParam },
    responses: { 204: { description: "Deleted" }, 404: responses.notFound, ...errorResponses },
  }),
  async (c) => {
    await deleteConnection(c.get("db"), c.get("account").id, idOf(c.req.valid("param").id), c.env);
    return c.body(null, 204);
  },
);

shopConnectionsRouter.openapi(
  createRoute({
    method: "post",
    path: "/shop-connections/{id}/test",
    tags,
    summary: "Test a shop connection: reachability, credentials, permissions, in words",
    description:
      "Calls the shop and answers each check with what is right or wrong: first whether the shop answers at all (the host name does not resolve, " +
      "the connection is refused, the TLS handshake fails, no answer in time), then the platform's own checks (credentials refused with a 401, a " +
      "missing permission, the tracking extension missing). Later checks are left out after a failed reachability check. Writes nothing into the shop.",
    security: apiSecurity,
    request: { params: IdParam },
    responses: { 200: responses.json(TestJson, "The checks, in order; ok is true when all passed"), 404: responses.notFound, 503: unavailable, ...errorResponses },
  }),
  async (c) => c.json(await testConnection(c.get("db"), c.env, c.get("account").id, idOf(c.req.valid("param").id), new URL(c.req.url).origin), 200),
);
