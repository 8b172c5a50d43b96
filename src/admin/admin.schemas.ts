// The operator's contract for a new account, which the API and the console both validate with.
import { z } from "@hono/zod-openapi";
import { field } from "../lib/validation";

export const AccountBody = z
  .object({
    name: field.text(255).openapi({ description: "The shop's name, up to 255 characters." }),
    shard: z
      .number()
      .int()
      .min(0)
      .optional()
      .openapi({ description: "Pins the account to this shard (0 is DB, n is SHARD_n). Left out: the shard with the most room." }),
  })
  .openapi("CreateAccountRequest", { example: { name: "Acme Shop" } });
