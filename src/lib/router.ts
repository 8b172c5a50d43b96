// Every router of the service: an OpenAPIHono whose validation failures become our 422 body.
import { OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { ApiError } from "./errors";
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
  .object({ message: z.string(), error: z.string() })
  .openapi("Error", { example: { message: "Unauthorized", error: "The api-key header is missing." } });

export const ValidationErrorBody = z
  .object({ message: z.literal("Errors"), errors: z.record(z.string(), z.array(z.string())) })
  .openapi("ValidationError", {
    example: { message: "Errors", errors: { "products.0.external_id": ["The products.0.external_id field is required."] } },
  });

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  content: { "application/json": { schema } },
  description,
});

export const errorResponses = {
  401: json(ErrorBody, "Missing or invalid credentials"),
  429: json(ErrorBody, "Too many requests"),
  500: json(ErrorBody, "Unexpected server error; retry later"),
} as const;

export const responses = {
  json,
  notFound: json(ErrorBody, "Not found"),
  invalid: json(ValidationErrorBody, "Validation failed"),
  badRequest: json(ErrorBody, "Malformed request"),
  tooLarge: json(ErrorBody, "Request body over 1 MiB"),
};

export const apiSecurity = [{ ApiKey: [], AccountId: [] }];

/** A required JSON request body for createRoute(). */
export const jsonBody = <T extends z.ZodType>(schema: T) => ({
  body: { content: { "application/json": { schema } }, required: true },
});
