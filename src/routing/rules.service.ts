// Routing rules of an account: CRUD and reordering. Every change requests a re-match of waiting lines
// in the same transaction (./rematch.ts).
import { and, asc, eq, sql } from "drizzle-orm";
import type { Db } from "../db";
import { routingRules, suppliers, type RoutingRule } from "../db/schema";
import { ApiError } from "../lib/errors";
import type { Pipeline } from "../lib/queue";
import { offsetOf, type PageRequest } from "../lib/pagination";
import { isoMicro } from "../lib/time";
import { changeAndRematch } from "./rematch";
import type { CreateRuleInput, UpdateRuleInput } from "./rules.schemas";

const notFound = (id: number | string) => ApiError.notFound(`Routing rule with id '${id}' not found`);

async function checkSupplier(db: Db, accountId: number, action: CreateRuleInput["action"] | undefined) {
  if (action?.type !== "assign_supplier") return;
  const own = await db.query.suppliers.findFirst({
    where: and(eq(suppliers.id, action.supplier_id), eq(suppliers.accountId, accountId)),
    columns: { id: true },
  });
  if (!own) {
    // Another account's supplier is indistinguishable from a missing one.
    throw ApiError.validation({ "action.supplier_id": ["The selected action.supplier_id is invalid."] });
  }
}

export async function createRule(db: Db, pipeline: Pipeline, accountId: number, input: CreateRuleInput): Promise<RoutingRule> {
  await checkSupplier(db, accountId, input.action);
  const now = isoMicro();
  const insert = db
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
      noReroute: input.no_reroute ?? false,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  const [row] = await changeAndRematch(db, pipeline, accountId, insert);
  return row;
}

export async function getRule(db: Db, accountId: number, id: number): Promise<RoutingRule> {
  const row = await db.query.routingRules.findFirst({ where: and(eq(routingRules.id, id), eq(routingRules.accountId, accountId)) });
  if (!row) throw notFound(id);
  return row;
}

export async function updateRule(db: Db, pipeline: Pipeline, accountId: number, id: number, input: UpdateRuleInput): Promise<RoutingRule> {
  await checkSupplier(db, accountId, input.action);
  const { no_reroute: noReroute, ...fields } = input;
  const update = db
    .update(routingRules)
    .set({ ...fields, ...(noReroute !== undefined && { noReroute }), updatedAt: isoMicro() })
    .where(and(eq(routingRules.id, id), eq(routingRules.accountId, accountId)))
    .returning();
  const [row] = await changeAndRematch(db, pipeline, accountId, update);
  if (!row) throw notFound(id);
  return row;
}

export async function deleteRule(db: Db, pipeline: Pipeline, accountId: number, id: number): Promise<void> {
  const remove = db
    .delete(routingRules)
    .where(and(eq(routingRules.id, id), eq(routingRules.accountId, accountId)))
    .returning({ id: routingRules.id });
  const rows = await changeAndRematch(db, pipeline, accountId, remove);
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
export async function reorderRules(db: Db, pipeline: Pipeline, accountId: number, ids: number[]): Promise<RoutingRule[]> {
  const existing = await db.select({ id: routingRules.id }).from(routingRules).where(eq(routingRules.accountId, accountId));
  const known = new Set(existing.map((r) => r.id));
  if (new Set(ids).size !== ids.length || ids.length !== known.size || ids.some((id) => !known.has(id))) {
    throw ApiError.validation({ ids: ["The ids field must list each of the account's routing rules exactly once."] });
  }
  const now = isoMicro();
  // One statement for any number of rules (up to 1000): the order travels as one JSON parameter.
  await changeAndRematch(
    db,
    pipeline,
    accountId,
    db
      .update(routingRules)
      .set({
        priority: sql`(SELECT (j.key + 1) * 10 FROM json_each(${JSON.stringify(ids)}) AS j WHERE j.value = ${routingRules.id})`,
        updatedAt: now,
      })
      .where(and(eq(routingRules.accountId, accountId), sql`${routingRules.id} IN (SELECT value FROM json_each(${JSON.stringify(ids)}))`))
      .returning({ id: routingRules.id }),
  );
  return db.select().from(routingRules).where(eq(routingRules.accountId, accountId)).orderBy(asc(routingRules.priority), asc(routingRules.id));
}
