// HTTP contract of /api/v1/suppliers.
import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../lib/errors";
import { resourcePage } from "../lib/pagination";
import { IdParam, PageQuery, pageRequest, parseId } from "../lib/params";
import { apiSecurity, createRouter, errorResponses, responses } from "../lib/router";
import { field } from "../lib/validation";
import { enqueueBestEffort } from "../processing/messages";
import { presentSupplier } from "./suppliers.present";
import { createSupplier, getSupplier, listSuppliers, updateSupplier } from "./suppliers.service";

export const suppliersRouter = createRouter();

const SupplierJson = z
  .object({
    id: z.number().int(),
    name: z.string(),
    code: z.string().nullable(),
    active: z.boolean(),
    priority: z.number().int().openapi({ description: "Lower wins catalogue price ties" }),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("SupplierDetail");

const fields = {
  name: field.text(255),
  code: field.optionalText(64),
  active: field.optionalBoolean(),
  priority: field.optionalInt({ min: 0, max: 1_000_000 }),
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
const jsonBody = <T extends z.ZodType>(schema: T) => ({ body: { content: { "application/json": { schema } }, required: true } });
const idOf = (raw: string) => {
  const id = parseId(raw);
  if (id === null) throw ApiError.notFound(`Supplier with id '${raw}' not found`);
  return id;
};

suppliersRouter.openapi(
  createRoute({
    method: "post",
    path: "/suppliers",
    tags,
    summary: "Create a supplier",
    security: apiSecurity,
    request: jsonBody(CreateSupplier),
    responses: { 201: responses.json(SupplierJson, "The supplier"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const supplier = await createSupplier(c.get("db"), c.get("account").id, c.req.valid("json"));
    await enqueueBestEffort(c.env, [{ type: "rematch_account", accountId: c.get("account").id }]);
    return c.json(presentSupplier(supplier), 201);
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
    const supplier = await updateSupplier(c.get("db"), accountId, idOf(c.req.valid("param").id), c.req.valid("json"));
    await enqueueBestEffort(c.env, [{ type: "rematch_account", accountId }]);
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
    const supplier = await updateSupplier(c.get("db"), c.get("account").id, idOf(c.req.valid("param").id), { active: false });
    return c.json(presentSupplier(supplier), 200);
  },
);
