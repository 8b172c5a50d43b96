// Talking to the Worker exactly as a client does: through its fetch handler, over HTTP semantics.
import { exports } from "cloudflare:workers";

export const BASE = "http://orders.test";

export type Credentials = { accountId: number; apiKey: string };

export function authHeaders(creds: Credentials): Record<string, string> {
  return { "api-key": creds.apiKey, "account-id": String(creds.accountId) };
}

export async function call(
  method: string,
  path: string,
  opts: { creds?: Credentials; body?: unknown; rawBody?: BodyInit; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { accept: "application/json", ...(opts.creds ? authHeaders(opts.creds) : {}) };
  let body: BodyInit | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(opts.body);
  }
  Object.assign(headers, opts.headers);
  const res = await exports.default.fetch(new Request(`${BASE}${path}`, { method, headers, body }));
  const text = await res.text();
  let json: any = undefined;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

export const ADMIN = { authorization: "Bearer test-admin-token" };
