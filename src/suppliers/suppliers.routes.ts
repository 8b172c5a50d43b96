// HTTP contract of /api/v1/suppliers.
import { createRoute, z } from "@hono/zod-openapi";
import { registerSupplier, registerSupplierKey } from "../shards/directory";
import { CHANNELS } from "../db/schema";
import { ApiError } from "../lib/errors";
import { resourcePage } from "../lib/pagination";
import { IdParam, idOrNotFound, PageQuery, pageRequest, parseId } from "../lib/params";
import { apiSecurity, createRouter, errorResponses, jsonBody, responses } from "../lib/router";
import { field } from "../lib/validation";
import { sealingKeys } from "../lib/sealed";
import { FileTransferJson } from "./file-transfer.schemas";
import { CreateSupplier, CreateSupplierKey, UpdateSupplier } from "./suppliers.schemas";
import { presentInboundFile, presentNewSupplierKey, presentSupplier, presentSupplierKey, presentSupplierWithSecret } from "./suppliers.present";
import { testFileTransfer } from "../forwarding/channels/file";
import { listInboundFiles } from "../forwarding/inbound-files.service";
import {
  createSupplier,
  createSupplierKey,
  getSupplier,
  getSupplierWithKeys,
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
    acknowledgement_deadline_hours: z.number().int().nullable().openapi({ description: "The supplier must answer a line within this many hours of the send (null: no deadline)" }),
    acknowledgement_deadline_reroute: z.boolean().openapi({ description: "A passed acknowledgement deadline re-routes the line to the next eligible supplier" }),
    shipping_deadline_days: z.number().int().nullable().openapi({ description: "The supplier must ship a line within this many days of accepting it (null: no deadline)" }),
    file_transfer: FileTransferJson.nullable().openapi({ description: "The file channel's server and files: every setting but the password and the private key" }),
    previous_secret_valid: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("SupplierDetail");

const SupplierWithSecret = SupplierJson.extend({
  webhook_secret: z
    .string()
    .nullable()
    .openapi({
      description:
        "Signs webhooks to the supplier and verifies its callbacks. Shown only here. null for a file supplier, which is handed none (it gets files and answers with files); one is minted when it moves to another channel (rotate the secret to see it).",
    }),
}).openapi("SupplierWithSecret");

const tags = ["Suppliers"];
const idOf = (raw: string) => idOrNotFound(raw, "Supplier");

suppliersRouter.openapi(
  createRoute({
    method: "post",
    path: "/suppliers",
    tags,
    summary: "Create a supplier",
    description:
      "A supplier that lines can be matched to, with the channel its orders reach it by. The answer shows its signing secret " +
      "(webhook_secret), which signs the webhooks sent to it and verifies its callbacks. The account's waiting lines are matched again.",
    security: apiSecurity,
    request: jsonBody(CreateSupplier),
    responses: { 201: responses.json(SupplierWithSecret, "The supplier, with its signing secret"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const supplier = await createSupplier(c.get("db"), c.get("pipeline"), c.get("account").id, c.req.valid("json"), () => sealingKeys(c.env));
    await registerSupplier(c.env, supplier.id, c.get("account").id);
    return c.json(presentSupplierWithSecret(supplier), 201);
  },
);

suppliersRouter.openapi(
  createRoute({
    method: "get",
    path: "/suppliers",
    tags,
    summary: "List suppliers (by priority, then id)",
    description: "The account's suppliers, active or not, by priority then id; paginated like the order list. Secrets are never shown here.",
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
    description: "One supplier of the account, without its secret; another account's supplier is not found.",
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
    description: "Changes only the fields sent; the account's waiting lines are matched again (a supplier may have become active).",
    security: apiSecurity,
    request: { params: IdParam, ...jsonBody(UpdateSupplier) },
    responses: { 200: responses.json(SupplierJson, "The supplier"), 404: responses.notFound, 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const accountId = c.get("account").id;
    const supplier = await updateSupplier(c.get("db"), c.get("pipeline"), accountId, idOf(c.req.valid("param").id), c.req.valid("json"), () => sealingKeys(c.env));
    return c.json(presentSupplier(supplier), 200);
  },
);

suppliersRouter.openapi(
  createRoute({
    method: "delete",
    path: "/suppliers/{id}",
    tags,
    summary: "Deactivate a supplier (kept for the history of the lines it served)",
    description: "Sets active to false: nothing more is matched or sent to it, and its lines keep showing it. PATCH active=true brings it back.",
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
    description:
      "Makes a new whsec_… secret and shows it once. Outgoing webhooks carry a signature per valid secret and callbacks signed with " +
      "either are accepted, until the next rotation. The body is optional: an empty body, with or without Content-Type, is no body.",
    security: apiSecurity,
    request: {
      params: IdParam,
      body: {
        content: {
          "application/json": {
            schema: z
              .object({
                expire_previous: field
                  .optionalBoolean()
                  .openapi({ description: "true: the previous secret stops working at once. By default it stays valid until the next rotation." }),
              })
              .openapi("RotateSecretRequest", { example: { expire_previous: false } }),
          },
        },
        required: false,
      },
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
    description:
      "A supplier key (osk_…), shown only in this answer: the supplier sends it as Authorization: Bearer <key> to fetch its orders, " +
      "acknowledge them and answer per line (/api/v1/supplier/…). It reaches only this supplier's orders.",
    security: apiSecurity,
    request: {
      params: IdParam,
      ...jsonBody(CreateSupplierKey),
    },
    responses: { 201: responses.json(SupplierKeyJson, "The key"), 404: responses.notFound, 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const created = await createSupplierKey(c.get("db"), c.get("account").id, idOf(c.req.valid("param").id), c.req.valid("json").name);
    await registerSupplierKey(c.env, created.secret, c.get("account").id);
    return c.json(presentNewSupplierKey(created), 201);
  },
);

const SupplierKeyItem = z
  .object({
    id: z.number().int(),
    supplier_id: z.number().int(),
    name: z.string().nullable(),
    prefix: z.string().openapi({ description: "The key's first characters, to tell keys apart (the secret is never shown again)" }),
    revoked_at: z.string().nullable(),
    created_at: z.string(),
  })
  .openapi("SupplierKeyListItem");

suppliersRouter.openapi(
  createRoute({
    method: "get",
    path: "/suppliers/{id}/keys",
    tags,
    summary: "List the supplier's keys, newest first (revoked ones too)",
    description: "Each key with its prefix, name, and when it was created and revoked; never the secret.",
    security: apiSecurity,
    request: { params: IdParam },
    responses: { 200: responses.json(z.object({ data: z.array(SupplierKeyItem) }), "The keys"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => {
    const { keys } = await getSupplierWithKeys(c.get("db"), c.get("account").id, idOf(c.req.valid("param").id));
    return c.json({ data: keys.map(presentSupplierKey) }, 200);
  },
);

suppliersRouter.openapi(
  createRoute({
    method: "delete",
    path: "/suppliers/{id}/keys/{keyId}",
    tags,
    summary: "Revoke a supplier key at once",
    description: "The key stops working with the next request.",
    security: apiSecurity,
    request: {
      params: z.object({
        id: z.string().openapi({ description: "The supplier's id." }),
        keyId: z.string().openapi({ description: "The key's id, as its create answer shows it." }),
      }),
    },
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

const CheckJson = z.object({
  name: z.string().openapi({ description: "connect, list, write, delete, and list_inbound when there is an inbound folder" }),
  ok: z.boolean(),
  message: z.string().openapi({ description: "What was done, or what failed in words (dns, refused, tls, auth, host_key_mismatch, permission_denied, not_found, disk_full, timeout, protocol)" }),
});

suppliersRouter.openapi(
  createRoute({
    method: "post",
    path: "/suppliers/{id}/file-transfer/test",
    tags,
    summary: "Test the supplier's file server: connect, list the folder, write and delete a probe file",
    description:
      "Connects with the stored settings, lists the order folder, writes a probe file (order-intake-probe-<uuid>.txt, atomically, as an " +
      "order) and deletes it, and lists the inbound folder when there is one. Each check says what failed in words; the checks after a " +
      "failed one are not tried. Always 200: ok says whether every check passed. A supplier without file_transfer gets one failed check.",
    security: apiSecurity,
    request: { params: IdParam },
    responses: {
      200: responses.json(
        z
          .object({
            ok: z.boolean(),
            checks: z.array(CheckJson),
            host_key: z
              .object({ fingerprint: z.string(), type: z.string() })
              .nullable()
              .openapi({
                description:
                  "SFTP: the host key the server showed when it is not the pinned one (a host_key_mismatch), proven by its signature: compare it with the one the supplier gave you before pinning it. null otherwise.",
              }),
          })
          .openapi("FileTransferTest"),
        "The checks",
      ),
      404: responses.notFound,
      ...errorResponses,
    },
  }),
  async (c) => {
    const supplier = await getSupplier(c.get("db"), c.get("account").id, idOf(c.req.valid("param").id));
    const { ok, checks, hostKey } = await testFileTransfer(c.env, supplier);
    return c.json({ ok, checks, host_key: hostKey }, 200);
  },
);

const InboundFileJson = z
  .object({
    id: z.number().int(),
    name: z.string().openapi({ description: "The file's name in the inbound folder" }),
    size: z.number().int(),
    modified_at: z.string().nullable().openapi({ description: "As the server listed it" }),
    status: z.enum(["processing", "done", "failed"]).openapi({ description: "processing (a cron run has it), done, or failed (the file could not be read: error says why)" }),
    error: z.string().nullable(),
    rows_applied: z.number().int(),
    rows_refused: z.number().int(),
    archived_to: z.string().nullable().openapi({ description: "Where it was moved (inbound.archive_directory), or null" }),
    claimed_at: z.string(),
    finished_at: z.string().nullable(),
    rows: z.array(
      z.object({
        row: z.number().int().openapi({ description: "1 for the first row after the header (CSV), or the first record" }),
        line_id: z.number().int().nullable(),
        action: z.string().nullable(),
        result: z.enum(["applied", "refused"]),
        message: z.string().nullable().openapi({ description: "Why a row was refused, as the supplier API would say it" }),
      }),
    ),
  })
  .openapi("InboundFile");

suppliersRouter.openapi(
  createRoute({
    method: "get",
    path: "/suppliers/{id}/inbound-files",
    tags,
    summary: "The supplier's answer files, newest first, each with its rows' results",
    description: "Every answer file the cron read from the supplier's inbound folder, paginated like the order list, each with every row's result.",
    security: apiSecurity,
    request: { params: IdParam, query: PageQuery },
    responses: {
      200: responses.json(z.object({ data: z.array(InboundFileJson) }).passthrough(), "A page of answer files"),
      404: responses.notFound,
      422: responses.invalid,
      ...errorResponses,
    },
  }),
  async (c) => {
    const accountId = c.get("account").id;
    const supplier = await getSupplier(c.get("db"), accountId, idOf(c.req.valid("param").id));
    const page = pageRequest(c.req.valid("query"));
    const { total, files } = await listInboundFiles(c.get("db"), accountId, supplier.id, page);
    return c.json(resourcePage(c.req.url, page, total, files.map(presentInboundFile)), 200);
  },
);
