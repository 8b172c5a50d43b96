// HTTP contract of a supplier's return terms: auto_authorise (with its return address), the return
// window in days after the last shipment, and how long it may take to answer.
import { createRoute, z } from "@hono/zod-openapi";
import { idOrNotFound } from "../lib/params";
import { apiSecurity, createRouter, errorResponses, responses } from "../lib/router";
import { ReturnSettingsBody } from "./returns.schemas";
import { getReturnSettings, saveReturnSettings } from "./settings.service";

export const returnSettingsRouter = createRouter();

const tags = ["Returns"];
const SettingsJson = z.object({ auto_authorise: z.boolean(), return_address: z.string().nullable(), window_days: z.number().int(), answer_within_hours: z.number().int().nullable() }).openapi("SupplierReturnSettingsResult");
const supplierParams = z.object({ id: z.string().openapi({ description: "The supplier's id", example: "4" }) });

returnSettingsRouter.openapi(
  createRoute({
    method: "get",
    path: "/suppliers/{id}/returns-settings",
    tags,
    summary: "A supplier's return terms: auto_authorise (with its return_address), window_days (default 30), answer_within_hours",
    description: "A supplier without settings of its own has the defaults.",
    security: apiSecurity,
    request: { params: supplierParams },
    responses: { 200: responses.json(SettingsJson, "The settings"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => c.json(await getReturnSettings(c.get("db"), c.get("account").id, idOrNotFound(c.req.valid("param").id, "Supplier")), 200),
);

returnSettingsRouter.openapi(
  createRoute({
    method: "put",
    path: "/suppliers/{id}/returns-settings",
    tags,
    summary: "Change a supplier's return terms (fields left out keep their value)",
    description: "auto_authorise needs a return_address, given now or kept from before (else a 422 naming it).",
    security: apiSecurity,
    request: { params: supplierParams, body: { content: { "application/json": { schema: ReturnSettingsBody } }, required: true } },
    responses: { 200: responses.json(SettingsJson, "The settings"), 404: responses.notFound, 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const body = c.req.valid("json");
    return c.json(await saveReturnSettings(c.get("db"), c.get("account").id, idOrNotFound(c.req.valid("param").id, "Supplier"), body), 200);
  },
);

