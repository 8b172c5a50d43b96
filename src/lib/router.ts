// Every router of the service: an OpenAPIHono whose validation failures become our 422 body; and
// the document's error responses, each with a true example of what that status answers.
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { ApiError, INTERNAL_ERROR_BODY, PAYLOAD_TOO_LARGE_BODY, RATE_LIMITED, STATUS_MESSAGES } from "./errors";
import { MALFORMED_JSON, unsupportedMediaType } from "./request-body";
import { SIGNATURE_MISMATCH } from "./signature";
import { toValidationErrors } from "./validation";

export function createRouter() {
  return new OpenAPIHono<AppEnv>({
    defaultHook: (result) => {
      // @hono/zod-validator hands the hook the raw input too (not in its type): we need it to
      // tell a missing field ("required") from a wrongly typed one.
      const raw = (result as { data?: unknown }).data;
      if (!result.success) throw ApiError.validation(toValidationErrors(result.error, raw));
    },
  });
}

// ---- Shared response schemas for the OpenAPI document ----------------------

export const ErrorBody = z
  .object({
    message: z.string().openapi({ description: "The HTTP status's reason phrase: Bad Request, Unauthorized, Not Found, …" }),
    error: z.string().openapi({ description: "What went wrong and what to do about it, in a sentence" }),
  })
  .openapi("Error", { example: { message: "Unauthorized", error: "The api-key header is missing." } });

export const ValidationErrorBody = z
  .object({
    message: z.literal("Errors"),
    errors: z
      .record(z.string(), z.array(z.string()))
      .openapi({ description: "Every failing field at once: its dotted path (zero-based indexes) -> its messages" }),
  })
  .openapi("ValidationError", {
    example: { message: "Errors", errors: { "products.0.external_id": ["The products.0.external_id field is required."] } },
  });

type ErrorExample = { message: string; error: string } | { message: "Errors"; errors: Record<string, string[]> };

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});

/**
 * An error response of the document with its own example. Without one, documentErrors() gives it
 * the example of its status on its route (the 401 of its credentials, the 422 its validators answer…).
 */
export function errorResponse(status: number, description: string, example?: ErrorExample) {
  const schema = status === 422 ? ValidationErrorBody : ErrorBody;
  return { description, content: { "application/json": { schema, ...(example ? { example } : {}) } } };
}

export const errorResponses = {
  401: errorResponse(401, "Missing or invalid credentials"),
  429: errorResponse(429, "Too many requests; wait as long as Retry-After says"),
  500: errorResponse(500, "Unexpected server error; retry later"),
} as const;

export const responses = {
  json,
  notFound: errorResponse(404, "Not found (another account's resources are not found either)"),
  invalid: errorResponse(422, "Validation failed; every failing field is named"),
  badRequest: errorResponse(400, "Malformed request body"),
  tooLarge: errorResponse(413, "Request body over 1 MiB"),
};

export const apiSecurity = [{ ApiKey: [], AccountId: [] }];

/** A required JSON request body for createRoute(). */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});

// ---- Completing every route's error responses --------------------------------

type Registry = OpenAPIHono<AppEnv>["openAPIRegistry"];
type RouteConfig = Extract<Registry["definitions"][number], { type: "route" }>["route"];
type Response = RouteConfig["responses"][string];
type MediaType = { schema?: unknown; example?: unknown };

const UNAUTHORIZED: Record<string, string> = {
  ApiKey: "The api-key header is missing.",
  SupplierKey: "The Authorization header must carry a supplier key: Bearer <key>.",
  AdminToken: "The admin token is invalid.",
};

// The 404 of a route, by its last path parameter (and the segment before it): what the service says.
const NOT_FOUND: Record<string, string> = {
  "orders/{reference}": "Order with reference '4812039475610234' not found",
  "suppliers/{id}": "Supplier with id '12' not found",
  "keys/{keyId}": "Supplier key with id '5' not found",
  "routing-rules/{id}": "Routing rule with id '3' not found",
  "product-feeds/{id}": "Product feed with id '12' not found",
  "imports/{import}": "Import with id '40' not found",
  "webhooks/{id}": "Webhook with id '7' not found",
  "shop-connections/{id}": "Shop connection with id '3' not found",
  "deliveries/{deliveryId}": "Delivery with id '41' not found",
  "orders/{dispatchId}": "Order with dispatch id '77' not found",
  "accounts/{id}": "Account with id '1' not found",
  "api-keys/{id}": "API key with id '3' not found",
  "cancellations/{cancellationId}": "Cancellation with id '12' not found",
  "lines/{line_id}": "Order line with id '901' not found",
  // Routes without a path parameter: the resource their body names.
  "routing-rules/explain": "Order with reference '4812039475610234' not found",
  "supplier/answers": "Order line with id '901' not found",
  "supplier-callbacks/{supplierId}": "Order line with id '901' not found",
};

function notFoundExample(path: string): string {
  const match = /([^/]+)\/(\{[^}]+\})(?!.*\{)/.exec(path) ?? /([^/]+\/[^/{]+)$/.exec(path);
  const key = match ? (match[2] ? `${match[1]}/${match[2]}` : match[1]) : path;
  return NOT_FOUND[key] ?? `The ${path} resource was not found.`;
}

/** The 422 the route's own validators answer to a wrong query value or an empty body. */
function validationExample(route: RouteConfig): ErrorExample | undefined {
  const attempts: [z.ZodType, unknown][] = [];
  const body = route.request?.body?.content["application/json"] as MediaType | undefined;
  if (body?.schema instanceof z.ZodType) {
    attempts.push([body.schema, {}]);
    const shape = body.schema instanceof z.ZodObject ? Object.keys(body.schema.shape) : [];
    for (const key of shape) attempts.push([body.schema, { [key]: { not: "valid" } }]);
  }
  for (const part of [route.request?.query, route.request?.params]) {
    if (part instanceof z.ZodObject) for (const key of Object.keys(part.shape)) attempts.push([part, { [key]: "x" }]);
  }
  for (const [schema, input] of attempts) {
    const result = schema.safeParse(input);
    if (!result.success) return { message: "Errors", errors: toValidationErrors(result.error, input) };
  }
  return undefined;
}

function exampleFor(status: number, route: RouteConfig): ErrorExample | undefined {
  const scheme = Object.keys(route.security?.[0] ?? {})[0];
  const error = (text: string) => ({ message: STATUS_MESSAGES[status], error: text });
  switch (status) {
    case 400:
      return error(MALFORMED_JSON);
    case 401:
      return error(scheme ? UNAUTHORIZED[scheme] : SIGNATURE_MISMATCH);
    case 404:
      return error(notFoundExample(route.path));
    case 413:
      return PAYLOAD_TOO_LARGE_BODY;
    case 415:
      return unsupportedMediaType(Object.keys(route.request?.body?.content ?? {})).body as ErrorExample;
    case 422:
      return validationExample(route);
    case 429:
      return error(RATE_LIMITED);
    case 500:
      return INTERNAL_ERROR_BODY;
    default:
      return undefined;
  }
}

/** The error statuses every route of this kind can answer, whether or not it lists them. */
function statusesOf(route: RouteConfig, streamed: boolean): Record<number, string> {
  const statuses: Record<number, string> = { 500: "Unexpected server error; retry later" };
  const scheme = Object.keys(route.security?.[0] ?? {})[0];
  if (scheme) statuses[401] = "Missing or invalid credentials";
  if (scheme === "ApiKey" || scheme === "SupplierKey") statuses[429] = "Too many requests; wait as long as Retry-After says";
  const content = route.request?.body?.content ?? {};
  if (Object.keys(content).length > 0) {
    statuses[415] = "A body of a type this endpoint does not take";
    // A streamed body (a feed file) is read by its route, which reports a bad or oversized file itself.
    if (!streamed) statuses[413] = "Request body over 1 MiB";
    if (!streamed && content["application/json"]) statuses[400] = "Malformed JSON (an empty body is no body: its fields are then missing)";
  }
  return statuses;
}

/**
 * Completes every route of the registry: the error statuses its kind of route can answer (415 on
 * every route with a body, 400 and 413 where the app reads the body, 401/429 by its credentials,
 * 500), and an example of its own for every error response in a documented shape that has none.
 */
export function documentErrors(registry: Registry, streamed: (method: string, path: string) => boolean) {
  for (const definition of registry.definitions) {
    if (definition.type !== "route") continue;
    const route = definition.route;
    const completed: Record<string, Response> = {};
    for (const [status, description] of Object.entries(statusesOf(route, streamed(route.method.toUpperCase(), route.path)))) {
      if (!route.responses[status]) completed[status] = errorResponse(Number(status), description);
    }
    for (const [status, response] of Object.entries({ ...route.responses, ...completed })) {
      const media = "content" in response ? (response.content?.["application/json"] as MediaType | undefined) : undefined;
      // Only the two documented shapes get a derived example; a route's own shape brings its own.
      const standard = media?.schema === ErrorBody || media?.schema === ValidationErrorBody;
      if (Number(status) < 400 || !media || !standard || media.example !== undefined) {
        completed[status] ??= response;
        continue;
      }
      const example = exampleFor(Number(status), route);
      completed[status] = example
        ? ({ ...response, content: { ...("content" in response ? response.content : {}), "application/json": { ...media, example } } } as Response)
        : response;
    }
    // Ordered by status, as a reader scans them.
    definition.route = { ...route, responses: Object.fromEntries(Object.entries(completed).sort(([a], [b]) => Number(a) - Number(b))) };
  }
}
