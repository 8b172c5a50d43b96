// The routing-rule contract: conditions in the rule language, an action, a priority.
import { z } from "@hono/zod-openapi";
import { field } from "../lib/validation";
import { CreateOrderBody, ORDER_EXAMPLE } from "../orders/orders.schemas";
import { checkCondition, OPERATORS, VARIABLES } from "./rules.language";

const Condition = z
  .object({
    variable: z.string().max(200).openapi({ example: "line.brand", description: `One of ${Object.keys(VARIABLES).join(", ")}, or line.custom.<key>` }),
    operator: z.string().max(50).openapi({ example: "is", description: OPERATORS.join(", ") }),
    value: z.unknown().optional().openapi({
      example: "Acme",
      description:
        "What to compare with: text, a number or true/false; for in_list and not_in_list an array (or a comma-separated string); " +
        "nothing for is_empty and is_not_empty. Text compares case-insensitively.",
    }),
  })
  // Checked per condition, so its errors are reported together with those of the other fields
  // (a refinement on the whole rule only runs once everything else is valid).
  .superRefine((condition, ctx) => {
    const problem = checkCondition(condition);
    if (problem) ctx.addIssue({ code: "custom", path: [problem.field], message: problem.message });
  })
  .openapi("RuleCondition");

const actionType = <T extends string>(type: T, does: string) => z.literal(type).openapi({ description: does });

const Action = z
  .discriminatedUnion("type", [
    z.object({
      type: actionType("assign_supplier", "assign_supplier: the line goes to supplier_id (it becomes ruled)."),
      supplier_id: field.int({ min: 1, max: 1e15 }).openapi({ description: "The id of one of the account's suppliers." }),
    }),
    z.object({ type: actionType("skip", "skip: the line becomes skipped, nothing is sent for it (gift wrap, services).") }),
    z.object({ type: actionType("block", "block: the whole order is blocked until someone unblocks it.") }),
  ])
  .openapi("RuleAction", {
    description: "What happens to a line the rule holds for: assign_supplier (with supplier_id), skip, or block the order.",
  });

const ruleFields = {
  name: field.text(255).openapi({ description: "A name to recognise the rule by in logs and explanations, up to 255 characters." }),
  priority: field
    .optionalInt({ min: 0, max: 1_000_000 })
    .openapi({ description: "Lower runs first (0 to 1,000,000; ties by id). Left out: after the last rule." }),
  match: z.enum(["all", "any"]).optional().openapi({ description: "all (the default): every condition must hold; any: one is enough." }),
  conditions: z
    .array(Condition)
    .max(50)
    .openapi({ description: "Up to 50 conditions on the line and its order. None: the rule always holds (a catch-all default supplier)." }),
  action: Action,
  active: field.optionalBoolean().openapi({ description: "false keeps the rule without using it; true by default." }),
  no_reroute: field.optionalBoolean().openapi({
    description: "true: lines this rule sends to its supplier stay with it, so a decline or failed send there is final; false (the default): they are re-routed.",
  }),
};

export const CreateRuleBody = z.object(ruleFields).openapi("CreateRoutingRuleRequest", {
  example: {
    name: "Gift wrap is a service",
    match: "all",
    conditions: [{ variable: "line.external_id", operator: "begins_with", value: "GIFT-" }],
    action: { type: "skip" },
  },
});
export const UpdateRuleBody = z
  .object(ruleFields)
  .partial()
  .openapi("UpdateRoutingRuleRequest", { example: { priority: 5, active: false } });
export type CreateRuleInput = z.output<typeof CreateRuleBody>;
export type UpdateRuleInput = z.output<typeof UpdateRuleBody>;

export const ReorderBody = z
  .object({
    ids: z
      .array(field.int({ min: 1, max: 1e15 }))
      .min(1)
      .max(1000)
      .openapi({ description: "Every rule id of the account exactly once, first to last; priorities become 10, 20, 30…" }),
  })
  .openapi("ReorderRoutingRulesRequest", { example: { ids: [3, 1, 2] } });

export const RuleJson = z
  .object({
    id: z.number().int(),
    name: z.string(),
    priority: z.number().int(),
    match: z.enum(["all", "any"]),
    conditions: z.array(Condition),
    action: Action,
    active: z.boolean(),
    no_reroute: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("RoutingRule");

export const ExplainBody = z
  .object({
    reference: field
      .optionalText(64)
      .openapi({ description: "The reference of one of the account's orders: how its lines are, or would now be, matched." }),
    order: CreateOrderBody.optional().openapi({
      description: "Or an order as POST /api/v1/orders takes it: how it would be matched, without storing it.",
    }),
    rule: CreateRuleBody.extend({
      id: field.optionalInt({ min: 1, max: 1e15 }).openapi({ description: "The saved rule this draft replaces (an edit); left out: a new rule." }),
    })
      .optional()
      .openapi({
        description:
          "A draft rule to try before saving it, in the body of POST /api/v1/routing-rules: evaluated as if saved and active, at its " +
          "priority (without one: the edited rule's, or last), in place of the saved rule `id` names. Nothing is written.",
      }),
  })
  .superRefine((v, ctx) => {
    if (v.reference === undefined && v.order === undefined) {
      ctx.addIssue({ code: "custom", path: ["reference"], message: "The :attribute field is required when order is not present." });
    }
  })
  .openapi("ExplainRequest", { example: { order: ORDER_EXAMPLE } });

