// A request body by its Content-Type: JSON, and on the routes that take them (POST /orders) the
// form bodies the original (Laravel) service read alike: urlencoded and multipart.
import type { Context } from "hono";
import { createMiddleware } from "hono/factory";
import { charsetOf, decodeBody } from "./charset";
import { ApiError, type ValidationErrors } from "./errors";
import { decodeFormFields, parseMultipart, parseUrlEncoded } from "./form-body";

export const JSON_TYPE = "application/json";
export const FORM_TYPES = ["application/x-www-form-urlencoded", "multipart/form-data"] as const;

// The media-type checks of @hono/zod-openapi's own body gate, so that every route agrees on what is JSON.
const JSON_RE = /^application\/([a-z-.]+\+)?json(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;
const URLENCODED_RE = /^application\/x-www-form-urlencoded(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;
const MULTIPART_RE = /^multipart\/form-data(;\s*[a-zA-Z0-9-]+=([^;]+))*$/i;

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

// A lone UTF-16 surrogate: what a JSON escape such as \ud800 gives, and no Unicode character.
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const MAX_TEXT_ERRORS = 100;
const escaped = (s: string) =>
  s.replace(new RegExp(LONE_SURROGATE.source, "g"), (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`);

/**
 * Every string and key of a parsed JSON value that is not Unicode text (it holds a lone surrogate
 * escape), by its dotted path, as our 422 names fields; null when there is none. The walk keeps its
 * own stack: JSON.parse takes nesting far deeper than recursion survives.
 */
export function notUnicodeText(value: unknown): ValidationErrors | null {
  type Step = { value: unknown; key: string | null; parent: Step | null };
  const pathOf = (step: Step) => {
    const keys: string[] = [];
    for (let s: Step | null = step; s?.key != null; s = s.parent) keys.unshift(escaped(s.key));
    return keys.join(".") || "body";
  };
  const errors: ValidationErrors = {};
  let count = 0;
  const fail = (step: Step, text: string) => {
    const field = pathOf(step);
    const lone = escaped(LONE_SURROGATE.exec(text)?.[0] ?? "");
    errors[field] = [`The ${field} field must be Unicode text: ${lone} is half of a surrogate pair, no character. Send the character itself, or both halves of its pair.`];
    count++;
  };
  const stack: Step[] = [{ value, key: null, parent: null }];
  while (stack.length > 0 && count < MAX_TEXT_ERRORS) {
    const step = stack.pop()!;
    const v = step.value;
    if (typeof v === "string") {
      if (LONE_SURROGATE.test(v)) fail(step, v);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: String(i), parent: step });
    } else if (v !== null && typeof v === "object") {
      const keys = Object.keys(v);
      for (let i = keys.length - 1; i >= 0; i--) {
        const child: Step = { value: (v as Record<string, unknown>)[keys[i]], key: keys[i], parent: step };
        if (LONE_SURROGATE.test(keys[i])) fail(child, keys[i]);
        else stack.push(child);
      }
    }
  }
  return count > 0 ? errors : null;
}

const parsedBodies = new WeakMap<Request, unknown>();

/**
 * Every JSON body, before any route reads it: its bytes decoded in the charset its Content-Type
 * declares (UTF-8 by default), strictly (src/lib/charset.ts), and every string in it checked to be
 * Unicode text. Routes then read the decoded text through c.req.json() (Hono's body cache) or
 * readBody(); a body that is no JSON at all is left to them (their 400 says so).
 */
export const decodeJsonBody = createMiddleware(async (c, next) => {
  const type = c.req.header("content-type");
  const raw = c.req.raw;
  if (type && JSON_RE.test(type) && raw.body !== null && raw.method !== "GET" && raw.method !== "HEAD") {
    const text = decodeBody(new Uint8Array(await c.req.arrayBuffer()), type);
    // Hono's c.req.json() and c.req.text() read this text instead of decoding the bytes again (loosely).
    (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
    const parsed = parseUnicodeJson(text);
    if (parsed) parsedBodies.set(raw, parsed.value);
  }
  await next();
});

/**
 * A JSON text's value, every string and key in it Unicode text (else the 422 naming each that holds
 * half a surrogate pair); null when the text is no JSON at all.
 */
export function parseUnicodeJson(text: string): { value: unknown } | null {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  const errors = notUnicodeText(value);
  if (errors) throw ApiError.validation(errors);
  return { value };
}

/**
 * The body as the plain value a JSON body gives. Without a Content-Type an empty body is an empty
 * object (validation then names the missing fields); any other body needs a type. Every kind of
 * body is decoded in its declared charset, strictly.
 */
export async function readBody(c: Context, opts: { forms: boolean }): Promise<unknown> {
  const type = c.req.header("content-type");
  const accepted = opts.forms ? [JSON_TYPE, ...FORM_TYPES] : [JSON_TYPE];
  if (!type) {
    if ((await c.req.arrayBuffer()).byteLength > 0) throw unsupportedMediaType(accepted);
    return {};
  }
  if (JSON_RE.test(type)) {
    if (parsedBodies.has(c.req.raw)) return parsedBodies.get(c.req.raw);
    try {
      return await c.req.json();
    } catch {
      throw ApiError.badRequest(MALFORMED_JSON);
    }
  }
  if (opts.forms && URLENCODED_RE.test(type)) {
    return decodeFormFields(parseUrlEncoded(new Uint8Array(await c.req.arrayBuffer()), charsetOf(type)));
  }
  if (opts.forms && MULTIPART_RE.test(type)) {
    return decodeFormFields(parseMultipart(new Uint8Array(await c.req.arrayBuffer()), type, charsetOf(type)));
  }
  throw unsupportedMediaType(accepted);
}
