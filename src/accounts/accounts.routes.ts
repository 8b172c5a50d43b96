// GET /api/v1: who am I (the Shopware plugin's "test connection" button calls it), and the
// account's own settings.
import { createRoute, z } from "@hono/zod-openapi";
import { apiSecurity, createRouter, errorResponses, jsonBody, responses } from "../lib/router";
import { field } from "../lib/validation";
import { MAX_ATTEMPTS_RANGE } from "../routing/context";
import { currencyCode } from "../lib/currency";
import { ARCHIVE_DAYS_RANGE, getSettings, updateSettings, type AccountSettings } from "./accounts.service";

export const accountRouter = createRouter();

const whoAmIRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["Account"],
  summary: "Check credentials; answers the account they belong to",
  description:
    "Answers the id and name of the account the api-key and account-id headers belong to, or the 401 saying what is wrong with " +
    "them (the Shopware plugin's \"test connection\" button calls it).",
  security: apiSecurity,
  responses: {
    200: responses.json(z.object({ id: z.number().int(), name: z.string() }).openapi("AccountInfo"), "The account"),
    ...errorResponses,
  },
});

accountRouter.openapi(whoAmIRoute, (c) => {
  const { id, name } = c.get("account");
  return c.json({ id, name }, 200);
});

// ---- Settings -----------------------------------------------------------------

const SettingsJson = z
  .object({
    reroute_enabled: z.boolean().openapi({
      description: "Re-route a line its supplier declines, confirms only in part or cannot be sent to, to the next eligible supplier (default true)",
    }),
    reroute_max_attempts: z.number().int().openapi({ description: "At most this many suppliers per line, the first one included (default 3)" }),
    currency: z.string().openapi({
      description: "ISO 4217: the currency of the catalogue's prices and of every order created without one (default EUR). Amounts are never converted.",
      example: "EUR",
    }),
    archive_after_days: z.number().int().openapi({ description: "Finished orders older than this many days are archived to R2, still read by reference (docs/archive.md; default 90)" }),
  })
  .openapi("AccountSettings");

const UpdateSettings = z
  .object({
    reroute_enabled: field.optionalBoolean().openapi({ description: "Switch re-routing on or off (off: a declined line stays declined)", example: true }),
    reroute_max_attempts: field
      .optionalInt(MAX_ATTEMPTS_RANGE)
      .openapi({ description: `Suppliers per line, the first included: ${MAX_ATTEMPTS_RANGE.min} to ${MAX_ATTEMPTS_RANGE.max}`, example: 3 }),
    currency: currencyCode.openapi({
      description:
        "An ISO 4217 code (any case, kept in capitals). It relabels, never converts: orders created without a currency are shown in it from then on.",
      example: "EUR",
    }),
    archive_after_days: field
      .optionalInt(ARCHIVE_DAYS_RANGE)
      .openapi({ description: `Archive finished orders after this many days: ${ARCHIVE_DAYS_RANGE.min} to ${ARCHIVE_DAYS_RANGE.max}`, example: 90 }),
  })
  .openapi("UpdateAccountSettingsRequest", { example: { reroute_enabled: true, reroute_max_attempts: 3, currency: "EUR" } });

const presentSettings = (s: AccountSettings) => ({
  reroute_enabled: s.rerouteEnabled,
  reroute_max_attempts: s.rerouteMaxAttempts,
  currency: s.currency,
  archive_after_days: s.archiveAfterDays,
});

accountRouter.openapi(
  createRoute({
    method: "get",
    path: "/settings",
    tags: ["Account"],
    summary: "The account's settings: re-routing, currency",
    description: "Whether a line its supplier cannot deliver goes to the next eligible supplier, and at most how many suppliers a line may have.",
    security: apiSecurity,
    responses: { 200: responses.json(SettingsJson, "The settings"), ...errorResponses },
  }),
  async (c) => c.json(presentSettings(await getSettings(c.get("db"), c.get("account").id)), 200),
);

accountRouter.openapi(
  createRoute({
    method: "patch",
    path: "/settings",
    tags: ["Account"],
    summary: "Change the account's settings (only the fields sent)",
    description: "Takes effect for the next decline, partial confirmation, failed send or passed deadline; answers every setting.",
    security: apiSecurity,
    request: jsonBody(UpdateSettings),
    responses: { 200: responses.json(SettingsJson, "The settings, all of them"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const input = c.req.valid("json");
    const settings = await updateSettings(c.get("db"), c.get("account").id, {
      rerouteEnabled: input.reroute_enabled,
      rerouteMaxAttempts: input.reroute_max_attempts,
      currency: input.currency,
      archiveAfterDays: input.archive_after_days,
    });
    return c.json(presentSettings(settings), 200);
  },
);
