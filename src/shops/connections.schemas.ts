// The shop-connection contract: the bodies the API and the console both validate with. A
// connection's credentials and settings are the platform's (platforms/settings.ts); the create
// checks them against the platform it names, a PATCH against the connection's own (the service).
import { z } from "@hono/zod-openapi";
import { SHOP_PLATFORMS } from "../db/schema/shops";
import { urlRefusal, addressMessage } from "../lib/outbound-address";
import { allowedValues, field, HTTP_URL_MESSAGE, isHttpUrl } from "../lib/validation";
import type { ShopPlatformName } from "../db/schema/shops";
import { MODES } from "./platforms/settings";
import { platformFor, platformNames } from "./platforms/index";
import { checkPlatformFields, isPlatform } from "./connection-fields";

/** The limits of a connection's fields (docs/shops.md, "Connections"). */
export const CONNECTION_LIMITS = { name: 100, baseUrl: 2048, sources: 20, source: 255 } as const;

/**
 * Plain http reaches only the machine the Worker runs on: in local development (wrangler dev, the
 * tests, npm start's stand-in shop) a Worker's fetch reaches loopback, and nothing else needs http.
 */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase();
  if (host === "localhost" || host === "[::1]") return true;
  // new URL() writes every IPv4 form (127.1, 0x7f.1) as dotted decimal.
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

const BASE_URL_HTTP_MESSAGE =
  "The :attribute field must be an https URL; plain http is taken only for a shop on this machine (localhost, 127.0.0.0/8 or [::1]), as in local development.";
const BASE_URL_PARTS_MESSAGE = "The :attribute field must be the shop's address only, without a query (?) or a fragment (#).";

/** An http(s) URL (isHttpUrl), https unless to loopback, without query or fragment; stored without its trailing slashes. */
const baseUrlChecks = (v: string, ctx: z.RefinementCtx) => {
  if (v.length > CONNECTION_LIMITS.baseUrl) return; // told only its length
  if (!isHttpUrl(v)) return void ctx.addIssue({ code: "custom", message: HTTP_URL_MESSAGE });
  const url = new URL(v);
  // Where a connection may point (src/lib/outbound-address.ts) comes first: it says the most.
  const refusal = urlRefusal(url);
  if (refusal) ctx.addIssue({ code: "custom", message: addressMessage(refusal) });
  else if (url.protocol === "http:" && !isLoopbackHost(url.hostname)) ctx.addIssue({ code: "custom", message: BASE_URL_HTTP_MESSAGE });
  else if (url.search !== "" || url.hash !== "" || /[?#]/.test(v)) ctx.addIssue({ code: "custom", message: BASE_URL_PARTS_MESSAGE });
};
const withoutTrailingSlash = (v: string) => v.replace(/\/+$/, "");

const SOURCES_EMPTY = "The :attribute field must list at least one source; leave it out (or null) to serve every order of the account.";
const sources = z
  .array(field.id(CONNECTION_LIMITS.source))
  .max(CONNECTION_LIMITS.sources)
  .superRefine((list, ctx) => {
    if (list.length === 0) ctx.addIssue({ code: "custom", message: SOURCES_EMPTY });
    list.forEach((s, i) => {
      const first = list.findIndex((o) => o.toLowerCase() === s.toLowerCase());
      if (first < i) ctx.addIssue({ code: "custom", path: [i], message: `The :attribute field repeats sources.${first}.` });
    });
  })
  .nullable();

const DESCRIBE = {
  platform: `The shop's platform: ${SHOP_PLATFORMS.join(", ")}. It cannot be changed afterwards.`,
  name: `A name for the connection, up to ${CONNECTION_LIMITS.name} characters.`,
  base_url:
    "The shop's address, every API path is appended to it (https://shop.example.com, or https://example.com/shop for a shop in a folder). " +
    "https only; plain http is taken only for localhost, 127.0.0.0/8 or [::1] (local development). No query or fragment; a trailing slash is left out.",
  credentials:
    "The platform's API credentials, every field and no other: woocommerce {consumer_key, consumer_secret}, shopware {client_id, client_secret}, " +
    "magento {access_token}, prestashop {webservice_key}. Encrypted at rest; never shown again (reads show a masked hint of each).",
  sources: `The order source values the connection serves (up to ${CONNECTION_LIMITS.sources}, each up to ${CONNECTION_LIMITS.source} characters, compared ignoring ASCII case); null or left out: every order of the account.`,
  settings:
    `The platform's settings, each with its default: mode (${MODES.join(" or ")}, live by default) for every platform; woocommerce complete_status ("completed") ` +
    'and tracking ("auto", "extension" or "note"); magento notify (true), inventory ("msi" or "legacy"), source_code ("default") and ean_attribute (null); prestashop shipped_state_id (4) and hold_state_id (null: no hold). Unknown fields are refused.',
  active: "false pauses the connection: nothing is written to the shop until it is active again. true by default.",
};

const fields = {
  name: field.text(CONNECTION_LIMITS.name).openapi({ description: DESCRIBE.name }),
  base_url: field
    .text(CONNECTION_LIMITS.baseUrl)
    .superRefine(baseUrlChecks)
    .transform(withoutTrailingSlash)
    .openapi({ type: "string", description: DESCRIBE.base_url }),
  credentials: z.record(z.string(), z.unknown()).openapi({ description: DESCRIBE.credentials }),
  sources: sources.optional().openapi({ description: DESCRIBE.sources }),
  settings: z.record(z.string(), z.unknown()).optional().openapi({ description: DESCRIBE.settings }),
  active: field.optionalBoolean().openapi({ description: DESCRIBE.active }),
};

export const CreateShopConnection = z
  .object({
    // Checked against the platforms registered when the request is read (an extension's too); the document lists the built-in ones.
    platform: z
      .custom<ShopPlatformName>(isPlatform, { error: () => `The selected :attribute is invalid. ${allowedValues(platformNames())}` })
      .openapi({ type: "string", enum: [...SHOP_PLATFORMS], description: DESCRIBE.platform }),
    ...fields,
  })
  .superRefine(
    (v, ctx) => {
      // Only a known platform's fields can be checked; an unknown one is the platform's own error.
      if (!isPlatform(v.platform)) return;
      // A part that is not an object is already named by its own field's check.
      const part = (x: unknown) => (x !== null && typeof x === "object" && !Array.isArray(x) ? x : undefined);
      for (const issue of checkPlatformFields(v.platform, { credentials: part(v.credentials), settings: part(v.settings) }).issues) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
      const address = typeof v.base_url === "string" ? (platformFor(v.platform).baseUrlProblem?.(v.base_url) ?? null) : null;
      if (address) ctx.addIssue({ code: "custom", path: ["base_url"], message: address });
    },
    // Run even when other fields failed (one 422 names every missing field, the platform's credentials included), on an object only (the OpenAPI generator tries null).
    { when: (payload) => typeof payload.value === "object" && payload.value !== null },
  )
  .openapi("CreateShopConnectionRequest", {
    example: {
      platform: "woocommerce",
      name: "Our WooCommerce shop",
      base_url: "https://shop.example.com",
      credentials: { consumer_key: "ck_4f3a9b2c1d0e8f7a6b5c4d3e2f1a0b9c8d7e6f5a", consumer_secret: "cs_0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b" },
      sources: ["shop.example.com"],
      settings: { mode: "dry_run" },
    },
  });

export const UpdateShopConnection = z
  .object({
    platform: z.string().optional().openapi({ description: "Only the connection's own platform (it cannot be changed)." }),
    name: field.optionalText(CONNECTION_LIMITS.name).openapi({ description: DESCRIBE.name }),
    base_url: field
      .optionalText(CONNECTION_LIMITS.baseUrl)
      .superRefine((v, ctx) => (v === undefined ? undefined : baseUrlChecks(v, ctx)))
      .transform((v) => (v === undefined ? v : withoutTrailingSlash(v)))
      .openapi({ type: "string", description: DESCRIBE.base_url }),
    credentials: fields.credentials.optional().openapi({ description: "New credentials: every field of the connection's platform (they replace the old ones)." }),
    sources: fields.sources,
    settings: fields.settings.openapi({ description: "The settings to change; the others keep their values. " + DESCRIBE.settings }),
    active: fields.active,
  })
  .openapi("UpdateShopConnectionRequest", { example: { settings: { mode: "live" }, active: true } });

export type CreateShopConnectionInput = z.output<typeof CreateShopConnection>;
export type UpdateShopConnectionInput = z.output<typeof UpdateShopConnection>;
