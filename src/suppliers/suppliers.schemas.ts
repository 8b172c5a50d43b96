// The supplier contract: the request bodies the API and the console both validate with.
import { z } from "@hono/zod-openapi";
import { CHANNELS } from "../db/schema";
import { channelNames, channelSettingsIssues, isChannel, type ChannelName } from "../forwarding/channels";
import { checkOutboundUrl } from "../lib/outbound-address";
import { allowedValues, field, HTTP_URL_MESSAGE, isHttpUrl } from "../lib/validation";
import { FileTransferBody } from "./file-transfer.schemas";

// Spelled out as every URL we take (isHttpUrl); one past its length is told only that.
const httpUrl = z.preprocess(
  (v) => (v === "" ? null : v),
  z
    .string()
    .max(2048)
    .refine((v) => v.length > 2048 || isHttpUrl(v), HTTP_URL_MESSAGE)
    // The webhook channel posts to it: a public address (or loopback), src/lib/outbound-address.ts.
    .superRefine((v, ctx) => void (v.length <= 2048 && isHttpUrl(v) && checkOutboundUrl(v, ctx)))
    .nullable()
    .optional(),
);
const email = z.preprocess((v) => (v === "" ? null : v), z.email().max(255).nullable().optional());

/** The bounds of a supplier's deadlines (src/forwarding/deadlines.ts keeps them). */
const DEADLINE_LIMITS = { ackHours: { min: 1, max: 720 }, shipDays: { min: 1, max: 365 } } as const;

/** A deadline: a whole number in its range, or null (or "") for none. */
const deadline = (range: { min: number; max: number }, description: string) =>
  z.preprocess((v) => (v === "" ? null : v), z.null().or(field.optionalInt(range))).openapi({ description });

const NAME = "The supplier's name, unique in the account (up to 255 characters); a line whose supplier field names it goes to it when no rule or catalogue product matches.";
const fields = {
  name: field.id(255).openapi({ description: NAME }),
  code: field.optionalId(64).openapi({ description: "A short code (up to 64 characters), matched like the name against a line's supplier field." }),
  active: field.optionalBoolean().openapi({ description: "false deactivates the supplier: nothing more is matched to it or sent to it. true by default." }),
  priority: field
    .optionalInt({ min: 0, max: 1_000_000 })
    .openapi({ description: "Lower wins a tie on purchase price between catalogue products (0 to 1,000,000)." }),
  // Checked against the channels registered when the request is read (an extension's too); the
  // document lists the built-in ones.
  channel: z
    .custom<ChannelName>(isChannel, { error: () => `The selected :attribute is invalid. ${allowedValues(channelNames())}` })
    .optional()
    .openapi({
      type: "string",
      enum: [...CHANNELS],
    description:
      "How matched lines reach the supplier: webhook (a signed POST of the order document to webhook_url), pull (the supplier " +
      "fetches its orders with a supplier key), email (an e-mail with a CSV to email), file (one file per order on the supplier's FTP, " +
      "FTPS or SFTP server, file_transfer), or manual (the default: nothing is sent, lines are completed by hand).",
  }),
  webhook_url: httpUrl.openapi({ description: "The http(s) URL the webhook channel posts each order to, signed with the supplier's secret." }),
  email: email.openapi({ description: "The address the email channel sends each order to." }),
  file_transfer: FileTransferBody.nullable()
    .optional()
    .openapi({
      description:
        "The file channel's server and files (required when channel is file); in an update it replaces the whole setting, and a missing " +
        "password or private_key keeps the stored one; null clears it. Reads show every setting but the password and the private key.",
    }),
  acknowledgement_deadline_hours: deadline(
    DEADLINE_LIMITS.ackHours,
    `Hours (${DEADLINE_LIMITS.ackHours.min} to ${DEADLINE_LIMITS.ackHours.max}) within which the supplier must answer a line it was sent (accept, decline, partial, ship, acknowledge); null: no deadline.`,
  ),
  acknowledgement_deadline_reroute: field
    .optionalBoolean()
    .openapi({ description: "true: when the acknowledgement deadline passes, the line goes to the next eligible supplier (and this one is told it is withdrawn); false by default." }),
  shipping_deadline_days: deadline(
    DEADLINE_LIMITS.shipDays,
    `Days (${DEADLINE_LIMITS.shipDays.min} to ${DEADLINE_LIMITS.shipDays.max}) within which the supplier must ship a line it accepted; null: no deadline.`,
  ),
};
export const CreateSupplier = z
  .object(fields)
  .superRefine(
    (v, ctx) => {
      // The fields the chosen channel cannot work without, and its own checks of them (the service checks the same on an update).
      if (!isChannel(v.channel)) return;
      for (const issue of channelSettingsIssues(v.channel, v)) ctx.addIssue({ code: "custom", path: issue.path, message: issue.message });
    },
    // Run even when other fields failed (one 422 names every missing field, the channel's own included), on an object only (the OpenAPI generator tries null).
    { when: (payload) => typeof payload.value === "object" && payload.value !== null },
  )
  .openapi("CreateSupplierRequest", {
  example: { name: "Tuinhout", code: "TH", priority: 10, channel: "email", email: "orders@tuinhout.example" },
});
export const UpdateSupplier = z
  .object({
    ...fields,
    name: field.optionalId(255).openapi({ description: NAME }),
    // In an update, null (or "") clears the code; leaving the field out keeps it.
    code: z
      .preprocess((v) => (v === "" ? null : v), z.null().or(field.optionalId(64)))
      .openapi({ description: "A short code, matched like the name against a line's supplier field; null or \"\" clears it." }),
  })
  .openapi("UpdateSupplierRequest", { example: { priority: 5, channel: "pull" } });

export const CreateSupplierKey = z
  .object({ name: field.optionalText(255).openapi({ description: "A name for the key, e.g. the supplier's system that uses it." }) })
  .openapi("CreateSupplierKeyRequest", { example: { name: "Tuinhout ERP" } });

