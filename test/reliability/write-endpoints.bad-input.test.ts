// Every other write endpoint under generated bodies: mutations of a valid body, random JSON and
// non-JSON. Never a 5xx, always a documented error, and a refused request changes nothing.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { accountState, createAccount, createOrder, orderPayload, rows, unique } from "../helpers/factories";
import { fuzz, HOSTILE_STRINGS, junk, mutate, mutations, pathsOf, text, type Mutation } from "../helpers/fuzz";
import { ADMIN, authHeaders, call } from "../helpers/http";
import { expectNoServerError } from "../helpers/invariants";
import { signedHeader, supplierWithRule } from "../helpers/suppliers";
import { pipelineIdle, waitFor } from "../helpers/wait";

type Target = {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** A body that would be accepted: the starting point of the mutations. */
  valid: unknown;
  /** What a refused request must leave unchanged (rows read straight from D1). */
  state: () => Promise<unknown>;
  /** The endpoint writes nothing even when it answers 200. */
  readOnly?: boolean;
  /** A success queues work for the pipeline (a re-match, a routing), which changes state later. */
  queues?: boolean;
  /** The lane's account: its state is read once the pipeline owes it nothing. */
  accountId?: number;
  /** Signs each body (the supplier callbacks). */
  sign?: (body: string) => Promise<Record<string, string>>;
};

/** How to make a body: mutate the lane's valid body, or send this raw text (random JSON or not JSON). */
type Recipe = { mutations: Mutation[] } | { raw: string };

function recipes(valid: unknown): fc.Arbitrary<Recipe> {
  return fc.oneof(
    { weight: 6, arbitrary: mutations(pathsOf(valid)).map((m) => ({ mutations: m })) },
    { weight: 1, arbitrary: fc.dictionary(text, junk, { maxKeys: 5 }).map((v) => ({ raw: JSON.stringify(v) })) },
    { weight: 1, arbitrary: junk.map((v) => ({ raw: JSON.stringify(v) ?? "null" })) },
    { weight: 1, arbitrary: fc.oneof(text, fc.constantFrom("{", '{"a":', "[1,", "\ufeff{}")).map((raw) => ({ raw })) },
  );
}

const render = (recipe: Recipe, valid: unknown) => ("raw" in recipe ? recipe.raw : JSON.stringify(mutate(valid, recipe.mutations)));

async function send(target: Target, body: string) {
  return call(target.method, target.path, {
    rawBody: body,
    headers: { ...target.headers, "content-type": "application/json", ...(await target.sign?.(body)) },
  });
}

/**
 * Sends generated bodies to the same endpoint of several accounts at once (one lane each, so a
 * change of state is attributable to one request). Every answer is a success or a documented 4xx,
 * and a refused request leaves its account's state exactly as it was.
 */
async function hammer(lanes: Target[], numRuns: number) {
  const label = `${lanes[0].method} ${lanes[0].path}`;
  let refused = 0;
  let pastValidation = 0;
  // Read once the pipeline is done with each account, as after every success that queued work.
  const settledState = async (t: Target) => {
    if (t.accountId !== undefined) await pipelineIdle(t.accountId);
    return t.state();
  };
  const states = await Promise.all(lanes.map(settledState));
  await fuzz(fc.array(recipes(lanes[0].valid), { minLength: lanes.length, maxLength: lanes.length }), numRuns, async (batch) => {
    await Promise.all(
      lanes.map(async (target, i) => {
        const body = render(batch[i], target.valid);
        const res = await send(target, body);
        expectNoServerError(res, `${target.method} ${target.path} ${body.slice(0, 400)}`);
        const after = res.status < 400 && target.queues ? await settledState(target) : await target.state();
        if (res.status >= 400 || target.readOnly) {
          expect(after, `${target.method} ${target.path} ${body.slice(0, 400)} changed state`).toEqual(states[i]);
        }
        if (res.status >= 400) refused++;
        if (![400, 401, 415, 422].includes(res.status)) pastValidation++;
        states[i] = after;
      }),
    );
  });
  // The generator must reach both the refusals and the handler behind the validation.
  expect(refused, label).toBeGreaterThan(0);
  expect(pastValidation, label).toBeGreaterThan(0);
}

const LANES = 3;
const lanes = <T>(make: () => Promise<T>) => Promise.all(Array.from({ length: LANES }, make));

/** An account with a pull supplier (and its key) holding one order's lines, ready to be answered. */
async function pulledOrder() {
  const creds = await createAccount();
  const { supplier } = await supplierWithRule(creds, { channel: "pull" });
  const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key as string;
  const products = [1, 2, 3].map((i) => ({ ...orderPayload().products[0], external_id: `p${i}`, quantity: 5 }));
  const { reference } = await createOrder(creds, { products });
  const order = await waitFor(async () => {
    const d = await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds });
    return d.json.data[0]?.status === "awaiting_pickup" ? (await call("GET", `/api/v1/orders/${reference}`, { creds })).json : null;
  });
  return { creds, supplier, key, reference, lineIds: order.order_lines.map((l: { id: number }) => l.id) as number[] };
}

const validSupplier = () => ({ name: unique("Supplier"), code: "ACME", active: true, priority: 10, channel: "manual", email: "orders@acme.example" });
const validRule = (supplierId: number) => ({
  name: "Mugs",
  priority: 5,
  match: "all",
  conditions: [
    { variable: "line.brand", operator: "is", value: "Mugs Inc" },
    { variable: "order.total", operator: "greater_than", value: 10 },
    { variable: "line.custom.color", operator: "in_list", value: ["blue", "red"] },
  ],
  action: { type: "assign_supplier", supplier_id: supplierId },
  active: true,
});

describe("write endpoints with generated bad input", () => {
  it("suppliers: create, update, keys, rotate-secret", async () => {
    const accounts = await lanes(async () => {
      const creds = await createAccount();
      const supplier = (await call("POST", "/api/v1/suppliers", { creds, body: validSupplier() })).json;
      return { creds, supplier, headers: authHeaders(creds), state: accountState(creds.accountId) };
    });
    const to = (method: string, path: (a: (typeof accounts)[number]) => string, valid: unknown) =>
      accounts.map((a) => ({ method, path: path(a), headers: a.headers, valid, state: a.state, accountId: a.creds.accountId }));
    await hammer(to("POST", () => "/api/v1/suppliers", validSupplier()), 10);
    await hammer(to("PATCH", (a) => `/api/v1/suppliers/${a.supplier.id}`, validSupplier()), 6);
    await hammer(to("POST", (a) => `/api/v1/suppliers/${a.supplier.id}/keys`, { name: "warehouse" }), 3);
    await hammer(to("POST", (a) => `/api/v1/suppliers/${a.supplier.id}/rotate-secret`, { expire_previous: true }), 3);
  });

  it("routing rules: create, update, reorder, explain", async () => {
    const accounts = await lanes(async () => {
      const creds = await createAccount();
      const supplier = (await call("POST", "/api/v1/suppliers", { creds, body: validSupplier() })).json;
      const rule = (await call("POST", "/api/v1/routing-rules", { creds, body: validRule(supplier.id) })).json;
      const { reference } = await createOrder(creds);
      // Routed and handed to the manual channel: from here on a re-match finds nothing pending.
      await waitFor(async () => (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data[0]?.status === "manual");
      return { creds, supplier, rule, reference, headers: authHeaders(creds), state: accountState(creds.accountId) };
    });
    type Lane = (typeof accounts)[number];
    const to = (method: string, path: (a: Lane) => string, valid: (a: Lane) => unknown, readOnly = false) =>
      // Rule changes queue a re-match, but the account's only order is routed and dispatched, so it
      // finds nothing pending and writes nothing: no need to wait for the pipeline.
      accounts.map((a) => ({ method, path: path(a), headers: a.headers, valid: valid(a), state: a.state, readOnly, accountId: a.creds.accountId }));
    await hammer(to("POST", () => "/api/v1/routing-rules", (a) => validRule(a.supplier.id)), 10);
    await hammer(to("PATCH", (a) => `/api/v1/routing-rules/${a.rule.id}`, (a) => validRule(a.supplier.id)), 6);
    const ids = async (a: Lane) => (await rows<{ id: number }>("SELECT id FROM routing_rules WHERE account_id = ? ORDER BY id DESC", a.creds.accountId)).map((r) => r.id);
    const allIds = new Map(await Promise.all(accounts.map(async (a) => [a, await ids(a)] as const)));
    await hammer(to("POST", () => "/api/v1/routing-rules/reorder", (a) => ({ ids: allIds.get(a) })), 8);
    // Explain writes nothing, ever: the state is compared after answered requests too.
    await hammer(to("POST", () => "/api/v1/routing-rules/explain", (a) => ({ order: orderPayload(), reference: a.reference }), true), 6);
  });

  it("every hostile string in every field of a rule and a supplier", async () => {
    const creds = await createAccount();
    const supplier = (await call("POST", "/api/v1/suppliers", { creds, body: validSupplier() })).json;
    const cases = [
      ...pathsOf(validRule(supplier.id)).map((path) => ["/api/v1/routing-rules", validRule(supplier.id), path] as const),
      ...pathsOf(validSupplier()).map((path) => ["/api/v1/suppliers", validSupplier(), path] as const),
    ].flatMap(([url, valid, path]) => HOSTILE_STRINGS.map((value) => [url, mutate(valid, [{ kind: "set", path, value }])] as const));
    for (let i = 0; i < cases.length; i += 25) {
      const answers = await Promise.all(cases.slice(i, i + 25).map(([url, body]) => call("POST", url, { creds, body })));
      answers.forEach((res, j) => expectNoServerError(res, `POST ${cases[i + j][0]} ${JSON.stringify(cases[i + j][1])}`));
    }
  });

  it("rule conditions read only a line's own custom keys", async () => {
    const creds = await createAccount();
    const supplier = (await call("POST", "/api/v1/suppliers", { creds, body: validSupplier() })).json;
    const rule = await call("POST", "/api/v1/routing-rules", {
      creds,
      body: { name: "no constructor", conditions: [{ variable: "line.custom.constructor", operator: "is_empty" }], action: { type: "assign_supplier", supplier_id: supplier.id } },
    });
    expect(rule.status).toBe(201);
    const explained = await call("POST", "/api/v1/routing-rules/explain", { creds, body: { order: orderPayload() } });
    expect(explained.status).toBe(200);
    expect(explained.json.lines[0].rules[0].conditions).toEqual([
      { variable: "line.custom.constructor", operator: "is_empty", value: null, actual: null, result: true },
    ]);
    expect(explained.json.lines[0].decision).toMatchObject({ action: "assign_supplier", supplier: { id: supplier.id, name: supplier.name } });
  });

  it("supplier answers, signed supplier callbacks, and the shop's order actions", async () => {
    const accounts = await lanes(async () => {
      const pulled = await pulledOrder();
      const [a, b, c] = pulled.lineIds;
      const answers = {
        answers: [
          { line_id: a, action: "partial", quantity: 3, reason: "only 3 left" },
          { line_id: b, action: "decline", reason: "discontinued" },
          { line_id: c, action: "ship", carrier: "PostNL", tracking_number: "3SABC", tracking_url: "https://track.example/3SABC", shipment_id: "s1" },
        ],
      };
      return { ...pulled, answers, state: accountState(pulled.creds.accountId) };
    });
    const lanesTo = (path: (a: (typeof accounts)[number]) => string, headers: (a: (typeof accounts)[number]) => Record<string, string>, signed: boolean) =>
      accounts.map((a) => ({
        method: "POST",
        path: path(a),
        headers: headers(a),
        valid: a.answers,
        state: a.state,
        accountId: a.creds.accountId,
        sign: signed ? async (body: string) => ({ "x-webhook-signature": await signedHeader(a.supplier.webhook_secret, body) }) : undefined,
      }));
    await hammer(lanesTo(() => "/api/v1/supplier/answers", (a) => ({ authorization: `Bearer ${a.key}` }), false), 10);
    await hammer(lanesTo((a) => `/api/v1/supplier-callbacks/${a.supplier.id}`, () => ({}), true), 6);

    // The shop's actions on the same orders.
    const shop = accounts.map((a) => ({ ...a, headers: authHeaders(a.creds) }));
    const to = (action: string, valid: unknown) =>
      shop.map((a) => ({
        method: "POST",
        path: `/api/v1/orders/${a.reference}/${action}`,
        headers: a.headers,
        valid,
        state: a.state,
        queues: action === "unblock",
        accountId: a.creds.accountId,
      }));
    await hammer(to("block", { reason: "fraud check" }), 4);
    await hammer(to("unblock", { reason: "checked" }), 4);
    await hammer(
      shop.map((a) => ({
        method: "POST",
        path: `/api/v1/orders/${a.reference}/complete`,
        headers: a.headers,
        valid: { line_ids: a.lineIds.slice(0, 1) },
        state: a.state,
        accountId: a.creds.accountId,
      })),
      4,
    );
  });

  it("admin: accounts and api keys", async () => {
    const accounts = await lanes(() => createAccount());
    // The accounts table is shared with files running at the same time, so creating accounts is
    // checked for its answers only (it is a single INSERT); issuing keys against each account's keys.
    await hammer(
      accounts.map(() => ({ method: "POST", path: "/admin/v1/accounts", headers: ADMIN, valid: { name: "Shop" }, state: async () => null })),
      3,
    );
    await hammer(
      accounts.map((a) => ({
        method: "POST",
        path: `/admin/v1/accounts/${a.accountId}/api-keys`,
        headers: ADMIN,
        valid: { name: "k", expires_at: "2030-01-01T00:00:00Z" },
        state: async () => rows("SELECT id FROM api_keys WHERE account_id = ? ORDER BY id", a.accountId),
      })),
      4,
    );
  });
});
