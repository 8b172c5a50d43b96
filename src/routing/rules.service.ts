// Routing rules of an account: CRUD and reordering. Every change queues a re-match of waiting lines.
import { and, asc, eq, sql } from "drizzle-orm";
import { runBatch, type Db } from "../db";
import { routingRules, type RoutingRule } from "../db/schema";
import { ApiError } from "../lib/errors";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { isoMicro } from "../lib/time";
import { ownsSuppliers } from "../suppliers/suppliers.service";
import type { CreateRuleInput, UpdateRuleInput } from "./rules.schemas";

const notFound = (id: number | string) => ApiError.notFound(`Routing rule with id '${id}' not found`);

async function checkSupplier(db: Db, accountId: number, action: CreateRuleInput["action"] | undefined) {
  if (action?.type === "assign_supplier" && !(await ownsSuppliers(db, accountId, [action.supplier_id]))) {
    // Another account's supplier is indistinguishable from a missing one.
    throw ApiError.validation({ "action.supplier_id": ["The selected action.supplier_id is invalid."] });
  }
}

export async function createRule(db: Db, accountId: number, input: CreateRuleInput): Promise<RoutingRule> {
  await checkSupplier(db, accountId, input.action);
  const now = isoMicro();
  const [row] = await db
    .insert(routingRules)
    .values({
      accountId,
      name: input.name,
      // Without a priority the rule goes last.
      priority:
        input.priority ??
        sql`(SELECT coalesce(max(${routingRules.priority}), 0) + 10 FROM ${routingRules} WHERE ${routingRules.accountId} = ${accountId})`,
      match: input.match ?? "all",
      conditions: input.conditions,
      action: input.action,
      active: input.active ?? true,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return row;
}

export async function getRule(db: Db, accountId: number, id: number): Promise<RoutingRule> {
  const row = await db.query.routingRules.findFirst({ where: and(eq(routingRules.id, id), eq(routingRules.accountId, accountId)) });
  if (!row) throw notFound(id);
  return row;
}

export async function updateRule(db: Db, accountId: number, id: number, input: UpdateRuleInput): Promise<RoutingRule> {
  await checkSupplier(db, accountId, input.action);
  const [row] = await db
    .update(routingRules)
    .set({ ...input, updatedAt: isoMicro() })
    .where(and(eq(routingRules.id, id), eq(routingRules.accountId, accountId)))
    .returning();
  if (!row) throw notFound(id);
  return row;
}

export async function deleteRule(db: Db, accountId: number, id: number): Promise<void> {
  const rows = await db
    .delete(routingRules)
    .where(and(eq(routingRules.id, id), eq(routingRules.accountId, accountId)))
    .returning({ id: routingRules.id });
  if (rows.length === 0) throw notFound(id);
}

export async function listRules(db: Db, accountId: number, page: PageRequest) {
  const where = eq(routingRules.accountId, accountId);
  const [countRows, rows] = await db.batch([
    db.select({ total: sql<number>`count(*)` }).from(routingRules).where(where),
    db.select().from(routingRules).where(where).orderBy(asc(routingRules.priority), asc(routingRules.id)).limit(page.perPage).offset(offsetOf(page)),
  ]);
  return { total: countRows[0]?.total ?? 0, rows };
}

/** Gives the listed rules priorities 10, 20, 30... in the order given; all of the account's rules must be listed. */
export async function reorderRules(db: Db, accountId: number, ids: number[]): Promise<RoutingRule[]> {
  const existing = await db.select({ id: routingRules.id }).from(routingRules).where(eq(routingRules.accountId, accountId));
  const known = new Set(existing.map((r) => r.id));
  if (new Set(ids).size !== ids.length || ids.length !== known.size || ids.some((id) => !known.has(id))) {
    throw ApiError.validation({ ids: ["The ids field must list each of the account's routing rules exactly once."] });
  }
  const now = isoMicro();
  // One statement for any number of rules (up to 1000): the order travels as one JSON parameter.
  await runBatch(db, [
    sql`UPDATE routing_rules SET priority = (j.key + 1) * 10, updated_at = ${now}
      FROM json_each(${JSON.stringify(ids)}) AS j
      WHERE routing_rules.id = j.value AND routing_rules.account_id = ${accountId}`,
  ]);
  return db.select().from(routingRules).where(eq(routingRules.accountId, accountId)).orderBy(asc(routingRules.priority), asc(routingRules.id));
}
