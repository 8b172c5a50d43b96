// D1 refuses a statement with more than 100 bound parameters. The db layer refuses it first, on
// every path statements are built (Drizzle's query builder, toStatement, a raw prepare on
// db.$client), with an error that names the statement: never a half-understood D1 error later.
import { env } from "cloudflare:workers";
import { inArray, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDb, D1_MAX_PARAMS, toStatement, TooManyParametersError, TooManyStatementsError } from "../../src/db";
import { orders } from "../../src/db/schema";

const db = createDb(env.DB);

/** The guard's error, also when Drizzle wraps it (DrizzleQueryError with the guard's as cause). */
async function guardError(work: Promise<unknown>): Promise<TooManyParametersError> {
  try {
    await work;
  } catch (error) {
    for (let e: unknown = error; e; e = (e as { cause?: unknown }).cause) if (e instanceof TooManyParametersError) return e;
    throw error;
  }
  throw new Error("no error");
}
const ids = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe("the bound-parameter guard", () => {
  it("lets 100 parameters through and refuses 101, on Drizzle's query builder", async () => {
    expect(await db.select({ id: orders.id }).from(orders).where(inArray(orders.id, ids(D1_MAX_PARAMS).map((i) => -i)))).toEqual([]);
    const error = await guardError(db.select({ id: orders.id }).from(orders).where(inArray(orders.id, ids(D1_MAX_PARAMS + 1))));
    expect(error.count).toBe(101);
    expect(error.message).toMatch(
      /^A statement binds 101 parameters; D1 accepts at most 100\. Pass sets as one JSON parameter \(json_each\)\. Statement: select "id" from "orders" where "orders"\."id" in \(\?, \?/,
    );
  });

  it("refuses it in toStatement, in a batch, and on a raw prepare of db.$client", async () => {
    const tooMany = sql`SELECT 1 WHERE 1 IN (${sql.join(ids(101).map((i) => sql`${i}`), sql`, `)})`;
    expect(() => toStatement(db, tooMany)).toThrow(TooManyParametersError);
    expect((await guardError(db.batch([db.select().from(orders).where(inArray(orders.id, ids(150)))]))).count).toBe(150);
    const placeholders = ids(101).map(() => "?").join(", ");
    expect(() => db.$client.prepare(`SELECT 1 WHERE 1 IN (${placeholders})`).bind(...ids(101))).toThrow(TooManyParametersError);
    expect(await db.$client.prepare(`SELECT 1 AS one WHERE 1 IN (${ids(100).map(() => "?").join(", ")})`).bind(...ids(100)).first()).toEqual({ one: 1 });
  });

  it("a set of any size travels as one JSON parameter", async () => {
    const rows = await db.$client
      .prepare("SELECT count(*) AS n FROM json_each(?) WHERE value > 0")
      .bind(JSON.stringify(ids(10_000)))
      .first<{ n: number }>();
    expect(rows).toEqual({ n: 10_000 });
  });

  it("refuses a batch of more statements than D1 runs in one invocation (local D1 would run it)", async () => {
    const one = () => db.$client.prepare("SELECT 1");
    expect((await db.$client.batch(Array.from({ length: 1000 }, one))).length).toBe(1000);
    await expect(db.$client.batch(Array.from({ length: 1001 }, one))).rejects.toThrow(TooManyStatementsError);
  });
});
