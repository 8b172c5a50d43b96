// Shopify's Admin GraphQL API (shopify.dev/docs/api/admin-graphql): one endpoint per API version,
// POST /admin/api/{version}/graphql.json with the custom app's token in X-Shopify-Access-Token.
// Every call goes through ShopHttp (../http.ts): queries are lookups (sent in a dry run too),
// mutations are writes.
//
// Rate limits (shopify.dev/docs/api/usage/limits): a bucket of cost points that refills at
// restoreRate a second. A query that costs more than is left answers 200 with a THROTTLED error and
// is not run; its extensions.cost.throttleStatus says how much is left, so we wait exactly until the
// bucket holds the query's cost and send it again (a few times, each wait bounded); a wait longer
// than that is a rate_limited ShopError with retryAfterSeconds, which the write-back's retries honour.
import { ShopError, type ShopHttp } from "../http";
import type { ShopConnection } from "../platform";
import type { Credentials, Settings } from "../settings";

export type ShopifyConn = ShopConnection<Credentials<"shopify">, Settings<"shopify">>;

/** Longest we wait in-line for the bucket to refill, and how many times. */
const MAX_INLINE_WAIT_MS = 4000;
const MAX_THROTTLED_RETRIES = 3;

type GqlError = { message?: string; extensions?: { code?: string } };
type ThrottleStatus = { maximumAvailable: number; currentlyAvailable: number; restoreRate: number };
type GqlBody<T> = { data?: T | null; errors?: GqlError[] | { query?: string }; extensions?: { cost?: { requestedQueryCost?: number; throttleStatus?: ThrottleStatus } } };

export type UserError = { field?: string[] | null; message: string; code?: string | null };

export const graphqlPath = (conn: ShopifyConn) => `/admin/api/${conn.settings.api_version}/graphql.json`;

/** How long until the bucket holds `cost` points, in ms (at least a tick; at most a full refill). */
export function refillWaitMs(cost: number, status: ThrottleStatus | undefined): number {
  if (!status || status.restoreRate <= 0) return 1000;
  const missing = Math.min(cost, status.maximumAvailable) - status.currentlyAvailable;
  return Math.max(50, Math.ceil((missing / status.restoreRate) * 1000));
}

export type GqlResult<T> = { data: T; apiVersion: string | null; dryRun: boolean };

/**
 * One operation. `mutation`: a write (recorded, not sent, in dry-run mode; its data is then empty).
 * Errors of the whole request (a field that does not exist, THROTTLED past our patience, 401, 5xx)
 * throw ShopError; a mutation's userErrors are the caller's to read.
 */
export async function gql<T>(conn: ShopifyConn, http: ShopHttp, query: string, variables: Record<string, unknown> = {}, options: { mutation?: boolean; sleep?: (ms: number) => Promise<void> } = {}): Promise<GqlResult<T>> {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const path = graphqlPath(conn);
  for (let attempt = 0; ; attempt++) {
    const res = await http.request({
      path,
      method: "POST",
      json: { query, variables },
      headers: { "X-Shopify-Access-Token": conn.credentials.access_token },
      lookup: !options.mutation,
      accept: [401, 404],
    });
    if (res.dryRun) return { data: {} as T, apiVersion: null, dryRun: true };
    if (res.status === 401) {
      throw new ShopError("auth", `Shopify refused the access token (401 on POST ${path}): copy the Admin API access token again from Settings > Apps and sales channels > Develop apps > the app > API credentials`, 401);
    }
    if (res.status === 404) {
      throw new ShopError("not_found", `Shopify has no Admin API at ${path} (404): is base_url the shop's https://{shop}.myshopify.com address, and settings.api_version a real version (${conn.settings.api_version})?`, 404);
    }
    const body = res.json<GqlBody<T>>();
    const errors = Array.isArray(body.errors) ? body.errors : body.errors ? [{ message: body.errors.query ?? JSON.stringify(body.errors) }] : [];
    if (errors.some((e) => e.extensions?.code === "THROTTLED")) {
      const wait = refillWaitMs(body.extensions?.cost?.requestedQueryCost ?? 50, body.extensions?.cost?.throttleStatus);
      if (attempt < MAX_THROTTLED_RETRIES && wait <= MAX_INLINE_WAIT_MS) {
        await sleep(wait);
        continue;
      }
      throw new ShopError("rate_limited", `Shopify's API cost limit is spent (THROTTLED on POST ${path}); it refills in about ${Math.ceil(wait / 1000)} s`, res.status, Math.ceil(wait / 1000));
    }
    if (errors.length > 0 || !body.data) {
      const words = errors.map((e) => e.message ?? "error").join("; ") || "no data";
      throw new ShopError("invalid", `Shopify refused the query (POST ${path}): ${words.slice(0, 400)}`, res.status);
    }
    return { data: body.data, apiVersion: res.headers.get("x-shopify-api-version"), dryRun: false };
  }
}

/** A mutation's userErrors as one ShopError (invalid: sending the same again would be refused again). */
export function refusedBy(what: string, errors: UserError[] | undefined | null): ShopError | null {
  if (!errors || errors.length === 0) return null;
  const words = errors.map((e) => `${e.field?.length ? `${e.field.join(".")}: ` : ""}${e.message}`).join("; ");
  return new ShopError("invalid", `Shopify refused ${what}: ${words}`);
}

/** Shopify's global ids (gid://shopify/Order/123) from the numeric ids its webhooks and REST use, and back. */
export const toGid = (type: string, id: string | number) => `gid://shopify/${type}/${id}`;
export const numericId = (gid: string) => gid.slice(gid.lastIndexOf("/") + 1);
