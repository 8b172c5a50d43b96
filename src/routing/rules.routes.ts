// HTTP contract of /api/v1/routing-rules: CRUD, reorder, explain.
import { createRoute, z } from "@hono/zod-openapi";
import { ApiError } from "../lib/errors";
import { resourcePage } from "../lib/pagination";
import { IdParam, idOrNotFound, PageQuery, pageRequest, parseId } from "../lib/params";
import { apiSecurity, createRouter, errorResponses, jsonBody, responses } from "../lib/router";
import { presentRule } from "./rules.present";
import { CreateRuleBody, ExplainBody, ReorderBody, RuleJson, UpdateRuleBody } from "./rules.schemas";
import { createRule, deleteRule, getRule, listRules, reorderRules, updateRule } from "./rules.service";
import { presentExplanation } from "./explain.present";
import { explainOrder } from "./routing.service";

export const rulesRouter = createRouter();

const tags = ["Routing rules"];
const idOf = (raw: string) => idOrNotFound(raw, "Routing rule");

rulesRouter.openapi(
  createRoute({
    method: "post",
    path: "/routing-rules",
    tags,
    summary: "Create a routing rule",
    description:
      "A rule: conditions on the line and its order (variables such as line.brand, order.total, order.shipping_address.country, " +
      "line.custom.<key>; operators such as is, contains, greater_than, in_list) and an action. Matching tries the active rules by " +
      "priority before the catalogue; the first whose conditions hold decides. The account's waiting lines are matched again.",
    security: apiSecurity,
    request: jsonBody(CreateRuleBody),
    responses: { 201: responses.json(RuleJson, "The rule"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const accountId = c.get("account").id;
    const rule = await createRule(c.get("db"), c.get("pipeline"), accountId, c.req.valid("json"));
    return c.json(presentRule(rule), 201);
  },
);

rulesRouter.openapi(
  createRoute({
    method: "get",
    path: "/routing-rules",
    tags,
    summary: "List routing rules in evaluation order",
    description: "The account's rules by priority, then id: the order in which matching tries them. Paginated like the order list.",
    security: apiSecurity,
    request: { query: PageQuery },
    responses: { 200: responses.json(z.object({ data: z.array(RuleJson) }).passthrough(), "A page of rules"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const page = pageRequest(c.req.valid("query"));
    const { total, rows } = await listRules(c.get("db"), c.get("account").id, page);
    return c.json(resourcePage(c.req.url, page, total, rows.map(presentRule)), 200);
  },
);

rulesRouter.openapi(
  createRoute({
    method: "post",
    path: "/routing-rules/reorder",
    tags,
    summary: "Set the evaluation order: list every rule id, first to last",
    description:
      "Gives the listed rules the priorities 10, 20, 30… in the order given; every rule of the account must be listed exactly once " +
      "(422 otherwise). Waiting lines are matched again. Answers the rules in their new order.",
    security: apiSecurity,
    request: jsonBody(ReorderBody),
    responses: { 200: responses.json(z.object({ data: z.array(RuleJson) }), "The rules in their new order"), 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const accountId = c.get("account").id;
    const rules = await reorderRules(c.get("db"), c.get("pipeline"), accountId, c.req.valid("json").ids);
    return c.json({ data: rules.map(presentRule) }, 200);
  },
);

rulesRouter.openapi(
  createRoute({
    method: "post",
    path: "/routing-rules/explain",
    tags,
    summary: "Explain, per line, which rule or catalogue product would match and why the others do not; writes nothing",
    description:
      "For an order of the account (reference) or one not sent yet (order): per line, the decision, every rule with each condition's " +
      "actual value and result, every catalogue candidate with why it was or was not eligible, and the supplier-field lookup; and a supplier a person chose " +
      "for the line (manual_decision: the supplier, who chose it, when; POST /api/v1/orders/{reference}/lines/{line_id}/assign).",
    security: apiSecurity,
    request: jsonBody(ExplainBody),
    responses: {
      200: responses.json(z.object({ outcome: z.string(), lines: z.array(z.object({}).passthrough()) }).passthrough(), "The explanation"),
      404: responses.notFound,
      422: responses.invalid,
      ...errorResponses,
    },
  }),
  async (c) => c.json(presentExplanation(await explainOrder(c.get("db"), c.get("account").id, c.req.valid("json"))), 200),
);

rulesRouter.openapi(
  createRoute({
    method: "get",
    path: "/routing-rules/{id}",
    tags,
    summary: "Fetch a routing rule",
    description: "One rule of the account; another account's rule is not found.",
    security: apiSecurity,
    request: { params: IdParam },
    responses: { 200: responses.json(RuleJson, "The rule"), 404: responses.notFound, ...errorResponses },
  }),
  async (c) => c.json(presentRule(await getRule(c.get("db"), c.get("account").id, idOf(c.req.valid("param").id))), 200),
);

rulesRouter.openapi(
  createRoute({
    method: "patch",
    path: "/routing-rules/{id}",
    tags,
    summary: "Update a routing rule (only the fields sent)",
    description: "Changes only the fields sent, validated like a create; the account's waiting lines are matched again.",
    security: apiSecurity,
    request: { params: IdParam, ...jsonBody(UpdateRuleBody) },
    responses: { 200: responses.json(RuleJson, "The rule"), 404: responses.notFound, 422: responses.invalid, ...errorResponses },
  }),
  async (c) => {
    const accountId = c.get("account").id;
    const rule = await updateRule(c.get("db"), c.get("pipeline"), accountId, idOf(c.req.valid("param").id), c.req.valid("json"));
    return c.json(presentRule(rule), 200);
  },
);

rulesRouter.openapi(
  createRoute({
    method: "delete",
    path: "/routing-rules/{id}",
    tags,
    summary: "Delete a routing rule",
    description: "Deletes the rule; lines it matched keep their supplier, and the account's waiting lines are matched again.",
    security: apiSecurity,
    request: { params: IdParam },
    responses: { 204: { description: "Deleted" }, 404: responses.notFound, ...errorResponses },
  }),
  async (c) => {
    const accountId = c.get("account").id;
    await deleteRule(c.get("db"), c.get("pipeline"), accountId, idOf(c.req.valid("param").id));
    return c.body(null, 204);
  },
);
