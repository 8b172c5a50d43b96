// Routing rules: per account, evaluated by priority; the first whose conditions hold decides a line.
import { index, integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

export type RuleCondition = { variable: string; operator: string; value?: unknown };
export type RuleAction =
  | { type: "assign_supplier"; supplier_id: number }
  | { type: "skip" }
  | { type: "block" };

export const routingRules = sqliteTable(
  "routing_rules",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name").notNull(),
    // Lower runs first.
    priority: integer("priority").notNull(),
    match: text("match", { enum: ["all", "any"] }).notNull().default("all"),
    conditions: text("conditions", { mode: "json" }).$type<RuleCondition[]>().notNull(),
    action: text("action", { mode: "json" }).$type<RuleAction>().notNull(),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    // Lines this rule sends to its supplier stay with it: a decline is final, as before re-routing.
    noReroute: integer("no_reroute", { mode: "boolean" }).notNull().default(false),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [index("routing_rules_account_priority_idx").on(t.accountId, t.priority, t.id)],
);

export type RoutingRule = typeof routingRules.$inferSelect;
