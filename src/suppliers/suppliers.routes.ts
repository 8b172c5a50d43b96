// HTTP contract of /api/v1/suppliers.
import { createRoute, z } from "@hono/zod-openapi";
import { CHANNELS } from "../db/schema";
import { ApiError } from "../lib/errors";
import { resourcePage } from "../lib/pagination";
import { IdParam, idOrNotFound, PageQuery, pageRequest, parseId } from "../lib/params";
import { apiSecurity, createRouter, errorResponses, jsonBody, responses } from "../lib/router";
import { field } from "../lib/validation";
import { presentSupplier, presentSupplierWithSecret } from "./suppliers.present";
import {
  createSupplier,
  createSupplierKey,
  getSupplier,
  listSuppliers,
  revokeSupplierKey,
  rotateSecret,
  updateSupplier,
} from "./suppliers.service";

export const suppliersRouter = createRouter();

const SupplierJson = z
  .object({
    id: z.number().int(),
    name: z.string(),
    code: z.string().nullable(),
    active: z.boolean(),
    priority: z.number().int().openapi({ description: "Lower wins catalogue price ties" }),
    channel: z.enum(CHANNELS),
    webhook_url: z.string().nullable(),
    email: z.string().nullable(),
    previous_secret_valid: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("SupplierDetail");

const SupplierWithSecret = SupplierJson.extend({
  webhook_secret: z.string().nullable().openapi({ description: "Signs webhooks to the supplier and verifies its callbacks. Shown only here." }),
}).openapi("SupplierWithSecret");

const httpUrl = z.preprocess(
  (v) => (v === "" ? null : v),
  z
    .url({ protocol: /^https?$/, error: "The :attribute field must be a valid http(s) URL." })
    .max(2048)
    .nullable()
    .optional(),
);
const email = z.preprocess((v) => (v === "" ? null : v), z.email().max(255).nullable().optional());

const fields = {
  name: field.text(255),
  code: field.optionalText(64),
  active: field.optionalBoolean(),
  priority: field.optionalInt({ min: 0, max: 1_000_000 }),
  channel: z.enum(CHANNELS).optional().openapi({ description: "How matched lines reach the supplier; default manual" }),
  webhook_url: httpUrl,
  email,
};
const CreateSupplier = z.object(fields).openapi("CreateSupplierRequest");
const UpdateSupplier = z
  .object({
    ...fields,
    name: field.optionalText(255),
    // In an update, null (or "") clears the code; leaving the field out keeps it.
    code: z.preprocess((v) => (v === "" ? null : v), z.null().or(field.optionalText(64))),
  })
  .openapi("UpdateSupplierRequest");

const tags = ["Suppliers"];
const idOf = (raw: string) => idOrNotFound(raw, "Supplier");

suppliersRouter.openapi(
  createRoute({
    method: "post",
    path: "/suppliers",
    tags,
    summary: "Create a supplier",
    security: apiSecurity,
    request: jsonBody(CreateSupplier),
    responses: { 201: responses.json(SupplierWithSecret, "The supplier, with its signing secret"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const supplier = await createSupplier(c.get("db"), c.get("pipeline"), c.get("account").id, c.req.valid("json"));
    return c.json(presentSupplierWithSecret(supplier), 201);
  },
);

suppliersRouter.openapi(
  createRoute({
    method: "get",
    path: "/suppliers",
    tags,
    summary: "List suppliers (by priority, then id)",
    security: apiSecurity,
    request: { query: PageQuery },
    responses: { 200: responses.json(z.object({ data: z.array(SupplierJson) }).passthrough(), "A page of suppliers"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const page = pageRequest(c.req.valid("query"));
    const { total, rows } = await listSuppliers(c.get("db"), c.get("account").id, page);
    return c.json(resourcePage(c.req.url, page, total, rows.map(presentSupplier)), 200);
  },
);

suppliersRouter.openapi(
  createRoute({
    method: "get",
    path: "/suppliers/{id}",
    tags,
    summary: "Fetch a supplier",
    security: apiSecurity,
    request: { params: IdParam },
    responses: { 200: responses.json(SupplierJson, "The supplier"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => c.json(presentSupplier(await getSupplier(c.get("db"), c.get("account").id, idOf(c.req.valid("param").id))), 200),
);

suppliersRouter.openapi(
  createRoute({
    method: "patch",
    path: "/suppliers/{id}",
    tags,
    summary: "Update a supplier (only the fields sent)",
    security: apiSecurity,
    request: { params: IdParam, ...jsonBody(UpdateSupplier) },
    responses: { 200: responses.json(SupplierJson, "The supplier"), 404: responses.notFound, 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const accountId = c.get("account").id;
    const supplier = await updateSupplier(c.get("db"), c.get("pipeline"), accountId, idOf(c.req.valid("param").id), c.req.valid("json"));
    return c.json(presentSupplier(supplier), 200);
  },
);

suppliersRouter.openapi(
  createRoute({
    method: "delete",
    path: "/suppliers/{id}",
    tags,
    summary: "Deactivate a supplier (kept for the history of the lines it served)",
    security: apiSecurity,
    request: { params: IdParam },
    responses: { 200: responses.json(SupplierJson, "The deactivated supplier"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => {
    const supplier = await updateSupplier(c.get("db"), c.get("pipeline"), c.get("account").id, idOf(c.req.valid("param").id), { active: false });
    return c.json(presentSupplier(supplier), 200);
  },
);

suppliersRouter.openapi(
  createRoute({
    method: "post",
    path: "/suppliers/{id}/rotate-secret",
    tags,
    summary: "New signing secret; the previous one stays valid until the next rotation (or not, with expire_previous)",
    security: apiSecurity,
    request: {
      params: IdParam,
      body: { content: { "application/json": { schema: z.object({ expire_previous: field.optionalBoolean() }) } }, required: false },
    },
    responses: { 200: responses.json(SupplierWithSecret, "The supplier with its new secret"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => {
    const supplier = await rotateSecret(c.get("db"), c.get("account").id, idOf(c.req.valid("param").id), c.req.valid("json")?.expire_previous ?? false);
    return c.json(presentSupplierWithSecret(supplier), 200);
  },
);

const SupplierKeyJson = z
  .object({
    id: z.number().int(),
    supplier_id: z.number().int(),
    name: z.string().nullable(),
    key: z.string().openapi({ description: "Send as Authorization: Bearer <key>. Shown only here." }),
    prefix: z.string(),
    created_at: z.string(),
  })
  .openapi("SupplierKey");

suppliersRouter.openapi(
  createRoute({
    method: "post",
    path: "/suppliers/{id}/keys",
    tags,
    summary: "Issue a key scoped to this supplier (pull channel and supplier answers)",
    security: apiSecurity,
    request: { params: IdParam, ...jsonBody(z.object({ name: field.optionalText(255) })) },
    responses: { 201: responses.json(SupplierKeyJson, "The key"), 404: responses.notFound, 422: responses.invalid, ...errorResponses },
  }),
  async (c) => c.json(await createSupplierKey(c.get("db"), c.get("account").id, idOf(c.req.valid("param").id), c.req.valid("json").name), 201),
);

suppliersRouter.openapi(
  createRoute({
    method: "delete",
    path: "/suppliers/{id}/keys/{keyId}",
    tags,
    summary: "Revoke a supplier key at once",
    security: apiSecurity,
    request: { params: z.object({ id: z.string(), keyId: z.string() }) },
    responses: { 204: { description: "Revoked" }, 404: responses.notFound, ...errorResponses },
  }),
  async (c) => {
    const { id, keyId } = c.req.valid("param");
    const key = parseId(keyId);
    if (key === null) throw ApiError.notFound(`Supplier key with id '${keyId}' not found`);
    await revokeSupplierKey(c.get("db"), c.get("account").id, idOf(id), key);
    return c.body(null, 204);
  },
);
