// The routing-rule contract: conditions in the rule language, an action, a priority.
import { z } from "@hono/zod-openapi";
import { field } from "../lib/validation";
import { checkCondition, OPERATORS, VARIABLES } from "./rules.language";

const Condition = z
  .object({
    variable: z.string().max(200).openapi({ example: "line.brand", description: `One of ${Object.keys(VARIABLES).join(", ")}, or line.custom.<key>` }),
    operator: z.string().max(50).openapi({ example: "is", description: OPERATORS.join(", ") }),
    value: z.unknown().optional().openapi({ example: "Acme" }),
  })
  // Checked per condition, so its errors are reported together with those of the other fields
  // (a refinement on the whole rule only runs once everything else is valid).
  .superRefine((condition, ctx) => {
    const problem = checkCondition(condition);
    if (problem) ctx.addIssue({ code: "custom", path: [problem.field], message: problem.message });
  })
  .openapi("RuleCondition");

const Action = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("assign_supplier"), supplier_id: field.int({ min: 1, max: 1e15 }) }),
    z.object({ type: z.literal("skip") }),
    z.object({ type: z.literal("block") }),
  ])
  .openapi("RuleAction");

const ruleFields = {
  name: field.text(255),
  priority: field.optionalInt({ min: 0, max: 1_000_000 }),
  match: z.enum(["all", "any"]).optional(),
  conditions: z.array(Condition).max(50),
  action: Action,
  active: field.optionalBoolean(),
};

export const CreateRuleBody = z.object(ruleFields).openapi("CreateRoutingRuleRequest");
export const UpdateRuleBody = z.object(ruleFields).partial().openapi("UpdateRoutingRuleRequest");
export type CreateRuleInput = z.output<typeof CreateRuleBody>;
export type UpdateRuleInput = z.output<typeof UpdateRuleBody>;

export const ReorderBody = z
  .object({ ids: z.array(field.int({ min: 1, max: 1e15 })).min(1).max(1000) })
  .openapi("ReorderRoutingRulesRequest");

export const RuleJson = z
  .object({
    id: z.number().int(),
    name: z.string(),
    priority: z.number().int(),
    match: z.enum(["all", "any"]),
    conditions: z.array(Condition),
    action: Action,
    active: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("RoutingRule");
