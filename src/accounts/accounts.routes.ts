// GET /api/v1: who am I. The Shopware plugin's "test connection" button calls it.
import { createRoute, z } from "@hono/zod-openapi";
import { apiSecurity, createRouter, errorResponses, responses } from "../lib/router";

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
