// A supplier's signed callback, read for the routes that take one (docs/forwarding.md, "Signed callbacks"): the supplier named in the
// path, on its shard, and the body signed with its webhook secret (or the previous one during a
// rotation). Dispatch answers and return answers arrive this way and are read the same.
import { and, eq } from "drizzle-orm";
import type { Context } from "hono";
import { suppliers } from "../db/schema";
import type { AppEnv } from "../env";
import { decodeBody } from "../lib/charset";
import { ApiError } from "../lib/errors";
import { parseId } from "../lib/params";
import { MALFORMED_JSON, parseUnicodeJson } from "../lib/request-body";
import { verifySignature } from "../lib/signature";
import { toSupplierIdShard } from "../shards/request";

/** The active supplier the callback is from and its JSON body, or the 401 (a bad signature and an unknown supplier alike) or 400. */
export async function signedCallback(c: Context<AppEnv>, rawSupplierId: string) {
  const id = parseId(rawSupplierId);
  if (id !== null) await toSupplierIdShard(c, id);
  const supplier = id === null ? undefined : await c.get("db").query.suppliers.findFirst({ where: and(eq(suppliers.id, id), eq(suppliers.active, true)) });
  // An unknown supplier and a bad signature look the same: nothing to probe.
  // The signature covers the bytes as sent (a body in another charset than UTF-8 too); verified, they
  // are read in the charset the Content-Type declares (UTF-8 without one), strictly, as every body is.
  const bytes = new Uint8Array(await c.req.arrayBuffer());
  const secrets = [supplier?.webhookSecret, supplier?.webhookSecretPrevious].filter((s): s is string => !!s);
  const verdict = await verifySignature(c.req.header("x-webhook-signature"), secrets.length ? secrets : ["-"], bytes);
  if (!supplier || !verdict.ok) throw ApiError.unauthorized(verdict.ok ? "The signature does not match." : verdict.reason);
  // With or without a Content-Type, half a surrogate pair is the 422 of every JSON body.
  const parsed = parseUnicodeJson(decodeBody(bytes, c.req.header("content-type")));
  if (!parsed) throw ApiError.badRequest(MALFORMED_JSON);
  return { supplier, body: parsed.value };
}
