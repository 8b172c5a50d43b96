// POST /api/v1/orders under generated input: mutated valid orders and random bodies. Whatever
// arrives, the answer is a 200 or a documented 4xx, and an order exists whole or not at all.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createAccount, orderPayload, rows, unique } from "../helpers/factories";
import { fuzz, HOSTILE_STRINGS, junk, mutate, mutations, pathsOf, text } from "../helpers/fuzz";
import { call, type Credentials } from "../helpers/http";
import { expectDocumentedError } from "../helpers/invariants";

const line = (i: number) => ({ ...orderPayload().products[0], external_id: `sku-${i}`, ean13: String(1000 + i) });
const base = (lines: number) => orderPayload({ external_id: "base", products: Array.from({ length: lines }, (_, i) => line(i)) });
const PATHS = pathsOf(base(2));
const BATCH = 10;
const RUNS = 30;

/** What an account holds: orders, lines, and lines' first log entries. */
async function counts(accountId: number) {
  const [row] = await rows<{ orders: number; lines: number; first_logs: number }>(
    `SELECT (SELECT count(*) FROM orders WHERE account_id = ?1) AS orders,
            (SELECT count(*) FROM order_lines WHERE account_id = ?1) AS lines,
            (SELECT count(*) FROM order_line_logs g JOIN orders o ON o.id = g.order_id
              WHERE o.account_id = ?1 AND g.status = 'pending' AND g.message = 'Order line created') AS first_logs`,
    accountId,
  );
  return row;
}

type Sent = { body: string | Uint8Array; lines: () => number; contentType?: string };

const show = (body: string | Uint8Array, n: number) => (typeof body === "string" ? body : `bytes ${JSON.stringify([...body.slice(0, n)])}`).slice(0, n);

/**
 * Sends bodies at once (as concurrent clients do) and checks the invariants: each answer is a
 * 200 with the documented body or a documented 4xx, and the account gained exactly the orders
 * answered "Order created", each with its lines and their first logs, and nothing else.
 */
async function postAndCheck(creds: Credentials, batch: Sent[], known: Map<number, number>) {
  const before = await counts(creds.accountId);
  const answers = await Promise.all(
    batch.map((s) => call("POST", "/api/v1/orders", { creds, rawBody: s.body, headers: { "content-type": s.contentType ?? "application/json" } })),
  );
  const expected = { ...before };
  const repeats: [number, string][] = [];
  answers.forEach((res, i) => {
    const label = `POST (${batch[i].contentType ?? "application/json"}) ${show(batch[i].body, 500)}`;
    if (res.status !== 200) return expectDocumentedError(res, label);
    expect(res.headers.get("content-type"), label).toMatch(/^application\/json/);
    expect(Object.keys(res.json).sort(), label).toEqual(["message", "reference"]);
    expect(Number.isSafeInteger(res.json.reference), label).toBe(true);
    if (res.json.message !== "Order created") {
      expect(res.json.message, label).toBe("Order already exists");
      return repeats.push([res.json.reference, label]);
    }
    const n = batch[i].lines();
    known.set(res.json.reference, n);
    expected.orders += 1;
    expected.lines += n;
    expected.first_logs += n;
  });
  for (const [reference, label] of repeats) expect(known.has(reference), label).toBe(true);
  expect(await counts(creds.accountId), batch.map((s) => show(s.body, 200)).join("\n")).toEqual(expected);
}

/**
 * Every stored order of the account is whole: the lines it was sent with, each with one first log
 * as its first entry; and the client reads back exactly those orders, whatever they hold.
 */
async function expectOnlyWholeOrders(creds: Credentials, known: Map<number, number>) {
  const stored = await rows<{ reference: string; lines: number; first_logs: number; first_is_created: number }>(
    `SELECT o.reference,
       (SELECT count(*) FROM order_lines l WHERE l.order_id = o.id) AS lines,
       (SELECT count(*) FROM order_line_logs g WHERE g.order_id = o.id AND g.message = 'Order line created') AS first_logs,
       (SELECT count(*) FROM order_lines l WHERE l.order_id = o.id AND (SELECT g.message FROM order_line_logs g
          WHERE g.order_line_id = l.id ORDER BY g.id LIMIT 1) = 'Order line created') AS first_is_created
     FROM orders o WHERE o.account_id = ?`,
    creds.accountId,
  );
  const expected = [...known.entries()].sort();
  expect(stored.map((o) => [Number(o.reference), o.lines]).sort()).toEqual(expected);
  for (const o of stored) expect([o.first_logs, o.first_is_created]).toEqual([o.lines, o.lines]);

  const listed: [number, number][] = [];
  for (let page = 1; ; page++) {
    const res = await call("GET", `/api/v1/orders?include_test=true&per_page=100&page=${page}`, { creds });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    for (const order of res.json.data) listed.push([Number(order.reference), order.order_lines.length]);
    if (res.json.links.next === null) break;
  }
  expect(listed.sort()).toEqual(expected);
}

describe("POST /api/v1/orders with generated bad input", () => {
  it("answers mutated valid orders with 200 or a documented 4xx, and stores only whole orders", async () => {
    const creds = await createAccount();
    const known = new Map<number, number>();
    const one = fc.record({ lines: fc.integer({ min: 1, max: 3 }), mutations: mutations(PATHS) });
    let sent = 0;
    await fuzz(fc.array(one, { minLength: BATCH, maxLength: BATCH }), RUNS, async (list) => {
      const bodies = list.map(({ lines, mutations: m }) => mutate({ ...base(lines), external_id: unique("fz") }, m) as Record<string, unknown>);
      await postAndCheck(creds, bodies.map((b) => ({ body: JSON.stringify(b), lines: () => (b.products as unknown[]).length })), known);
      sent += list.length;
    });
    await expectOnlyWholeOrders(creds, known);
    // Guard against a generator that only ever produces refusals (or only successes).
    expect(sent).toBeGreaterThanOrEqual(RUNS * BATCH);
    expect(known.size).toBeGreaterThan(sent * 0.05);
    expect(known.size).toBeLessThan(sent * 0.8);
  });

  it("survives every hostile string in every field of an otherwise valid order, one field at a time", async () => {
    const creds = await createAccount();
    const known = new Map<number, number>();
    const paths = pathsOf(base(1));
    const leaves = paths.filter((p) => !paths.some((q) => q.length > p.length && p.every((k, i) => q[i] === k)));
    const cases = leaves.flatMap((path) => HOSTILE_STRINGS.map((value) => mutate({ ...base(1), external_id: unique("nasty") }, [{ kind: "set", path, value }])));
    for (let i = 0; i < cases.length; i += 25) {
      await postAndCheck(creds, cases.slice(i, i + 25).map((b) => ({ body: JSON.stringify(b), lines: () => 1 })), known);
    }
    await expectOnlyWholeOrders(creds, known);
  });

  it("answers random JSON and non-JSON bodies with a documented 4xx, writing nothing", async () => {
    const creds = await createAccount();
    const known = new Map<number, number>();
    const body = fc.oneof(
      junk.map((v) => JSON.stringify(v) ?? "null"),
      fc.dictionary(text, junk, { maxKeys: 8 }).map((v) => JSON.stringify(v)),
      text,
      fc.constantFrom("{", "[", '{"external_id": "x",', "{'a': 1}", '{"a":1}{"b":2}', "\u0000", "\ufeff{}", '"\\ud800"', "1e999999"),
      // Bytes that are no UTF-8 at all, bare or inside a JSON string.
      fc.uint8Array({ maxLength: 64 }),
      fc.uint8Array({ minLength: 1, maxLength: 8 }).map((b) => new Uint8Array([...new TextEncoder().encode('{"external_id":"'), ...b.map((x) => x | 0x80), ...new TextEncoder().encode('"}')])),
    );
    const contentType = fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      "application/json; charset=latin1",
      "APPLICATION/JSON",
      "application/vnd.api+json",
      "text/json",
      "text/plain",
      "multipart/form-data; boundary=x",
      "application/json, text/plain",
      "",
    );
    await fuzz(fc.array(fc.tuple(body, contentType), { minLength: BATCH, maxLength: BATCH }), 25, async (list) => {
      await postAndCheck(creds, list.map(([raw, type]) => ({ body: raw, contentType: type, lines: () => 0 })), known);
    });
    expect(known.size).toBe(0);
    await expectOnlyWholeOrders(creds, known);
  });
});
