// A request body by its Content-Type: JSON, and on the routes that take them (POST /orders) the
// form bodies the original (Laravel) service read alike: urlencoded and multipart.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { ApiError } from "./errors";
import { decodeFormFields, parseUrlEncoded } from "./form-body";

export const JSON_TYPE = "application/json";
export const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"] as const;

// The media-type checks of @hono/zod-openapi's own body gate, so that every route agrees on what is JSON.
const JSON_RE = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;
const URLENCODED_RE = /^application\/x-www-form-urlencoded(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;
const MULTIPART_RE = /^multipart\/form-data(;\s?boundary=[a-zA-Z0-9'"()+_,\-./:=?]+)?$/i;

export const MALFORMED_JSON = "Malformed JSON in request body";

const listOf = (items: readonly string[]) =>
  items.length <= 1 ? (items[0] ?? JSON_TYPE) : `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;

/** The 415 of every route: it names what the route accepts. */
export function unsupportedMediaType(accepted: readonly string[]) {
  return new ApiError(415, "Unsupported Media Type", { error: `Send the body as ${listOf(accepted)}.` });
}

/**
 * An empty body is no body, whatever its Content-Type says: the request goes on without Content-Type
 * and body, so an optional body is simply absent and a required one is an empty object whose missing
 * fields validation names (never "Malformed JSON" for a POST …/complete sent with no data).
 */
export const emptyBodyIsNoBody = createMiddleware(async (c, next) => {
  const raw = c.req.raw;
  if (raw.method !== "GET" && raw.method !== "HEAD" && raw.headers.has("content-type") && (await isEmpty(c))) {
    const headers = new Headers(raw.headers);
    headers.delete("content-type");
    headers.delete("content-length");
    c.req.raw = new Request(raw.url, { method: raw.method, headers, signal: raw.signal });
  }
  await next();
});

async function isEmpty(c: Context): Promise<boolean> {
  if (c.req.raw.body === null) return true;
  const length = c.req.header("content-length");
  if (length !== undefined) return Number(length) === 0;
  // A streamed body of unknown length: read it (the 1 MiB limit applies) and keep it for the route.
  return (await c.req.arrayBuffer()).byteLength === 0;
}

/**
 * The body as the plain value a JSON body gives. Without a Content-Type an empty body is an empty
 * object (validation then names the missing fields); any other body needs a type.
 */
export async function readBody(c: Context, opts: { forms: boolean }): Promise<unknown> {
  const type = c.req.header("content-type");
  const accepted = opts.forms ? [JSON_TYPE, ...FORM_TYPES] : [JSON_TYPE];
  if (!type) {
    if ((await c.req.arrayBuffer()).byteLength > 0) throw unsupportedMediaType(accepted);
    return {};
  }
  if (JSON_RE.test(type)) {
    try {
      return await c.req.json();
    } catch {
      throw ApiError.badRequest(MALFORMED_JSON);
    }
  }
  if (opts.forms && URLENCODED_RE.test(type)) {
    return decodeFormFields(parseUrlEncoded(new Uint8Array(await c.req.arrayBuffer())));
  }
  if (opts.forms && MULTIPART_RE.test(type)) {
    let form: FormData;
    try {
      form = await c.req.formData();
    } catch {
      throw ApiError.badRequest("Malformed multipart/form-data body");
    }
    return decodeFormFields(form.entries());
  }
  throw unsupportedMediaType(accepted);
}
