// HTTP contract of GET /api/v1/suppliers/{id}/x12-interchanges: an X12 supplier's files each way
// with their control numbers, what each did, and their segments one per line (docs/edi.md).
import { createRoute, z } from "@hono/zod-openapi";
import type { X12Interchange } from "../db/schema";
import { listX12Interchanges } from "../forwarding/x12/interchanges.service";
import { resourcePage } from "../lib/pagination";
import { IdParam, idOrNotFound, PageQuery, pageRequest } from "../lib/params";
import { apiSecurity, createRouter, errorResponses, responses } from "../lib/router";
import { segmentsOf } from "../lib/x12/reader";
import { getSupplier } from "./suppliers.service";

export const x12Router = createRouter();

const X12InterchangeJson = z
  .object({
    id: z.number().int(),
    direction: z.enum(["out", "in"]).openapi({ description: "out: written by us (850, 860, our 997); in: read from the supplier's inbound folder" }),
    control_number: z.number().int().openapi({ description: "ISA13 (ours: GS06 and ST02 too)" }),
    sets: z.string().openapi({ description: "The transaction sets in it, e.g. 850 or 855,856" }),
    file_name: z.string(),
    status: z.enum(["written", "accepted", "rejected", "applied", "failed"]).openapi({ description: "out: written, then accepted or rejected by the supplier's 997; in: applied" }),
    note: z.string().nullable().openapi({ description: "What it did, or the supplier's 997 verdict in words" }),
    dispatch_id: z.number().int().nullable(),
    inbound_file_id: z.number().int().nullable(),
    created_at: z.string(),
    segments: z.array(z.string()).openapi({ description: "The file's segments, one per line (the console's View)" }),
  })
  .openapi("X12Interchange");

const present = (i: X12Interchange) => ({
  id: i.id,
  direction: i.direction,
  control_number: i.controlNumber,
  sets: i.sets,
  file_name: i.fileName,
  status: i.status,
  note: i.note,
  dispatch_id: i.dispatchId,
  inbound_file_id: i.inboundFileId,
  created_at: i.createdAt,
  segments: segmentsOf(i.content),
});

x12Router.openapi(
  createRoute({
    method: "get",
    path: "/suppliers/{id}/x12-interchanges",
    tags: ["Suppliers"],
    summary: "An X12 supplier's files each way, newest first, with their control numbers and segments",
    description:
      "Every X12 interchange of a file supplier with `format: \"x12\"`: what we wrote (850, 860, our 997) and what we read from its inbound folder " +
      "(997, 855, 856, 810, 846), each with its control number, its status, what it did in words and its segments one per line. " +
      "Paginated like the other lists. Another account's supplier is a 404 (docs/edi.md).",
    security: apiSecurity,
    request: { params: IdParam, query: PageQuery },
    responses: {
      200: responses.json(z.object({ data: z.array(X12InterchangeJson) }).passthrough(), "A page of X12 interchanges"),
      404: responses.notFound,
      422: responses.invalid,
      ...errorResponses,
    },
  }),
  async (c) => {
    const accountId = c.get("account").id;
    const supplier = await getSupplier(c.get("db"), accountId, idOrNotFound(c.req.valid("param").id, "Supplier"));
    const page = pageRequest(c.req.valid("query"));
    const { total, interchanges } = await listX12Interchanges(c.get("db"), accountId, supplier.id, page);
    return c.json(resourcePage(c.req.url, page, total, interchanges.map(present)), 200);
  },
);
