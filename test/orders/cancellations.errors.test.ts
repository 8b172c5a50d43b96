// Cancellations refused: every error case with its exact answer, every limit at its maximum and one
// past it, and nothing of a refused request written (the account's whole state compared).
import { describe, expect, it } from "vitest";
import { cancel, getOrder, sentOrder } from "../helpers/cancellations";
import { accountState, createAccount, createOrder, orderPayload } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { expectDocumentedError } from "../helpers/invariants";
import { answer } from "../helpers/suppliers";
import { pipelineIdle } from "../helpers/wait";

/** The answer, after checking it is a documented error that changed nothing. */
async function refused(creds: Credentials, request: () => Promise<Awaited<ReturnType<typeof call>>>) {
  const state = accountState(creds.accountId);
  const before = await state();
  const res = await request();
  expectDocumentedError(res);
  expect(await state()).toEqual(before);
  return { status: res.status, json: res.json };
}

const conflict = (error: string) => ({ status: 409, json: { message: "Conflict", error } });
const invalid = (errors: Record<string, string[]>) => ({ status: 422, json: { message: "Errors", errors } });

async function pendingOrder(creds: Credentials, lines = 2) {
  const products = Array.from({ length: lines }, (_, i) => ({ external_id: `l${i}`, name: `Line ${i}`, quantity: 3, price: 1 }));
  const { reference } = await createOrder(creds, orderPayload({ products }));
  await pipelineIdle(creds.accountId);
  return { reference, lineIds: (await getOrder(creds, reference)).order_lines.map((l: { id: number }) => l.id) as number[] };
}

describe("cancelling what cannot be cancelled", () => {
  it("another account's order, or an unknown one: 404 like any unknown order", async () => {
    const owner = await createAccount();
    const { reference } = await pendingOrder(owner);
    const stranger = await createAccount();
    for (const ref of [reference, "1234567890123456"]) {
      expect(await refused(stranger, () => cancel(stranger, ref))).toEqual({ status: 404, json: { message: "Not Found", error: `Order with reference '${ref}' not found` } });
    }
  });

  it("twice: the line's cancellation already waits (409), and an order with nothing left to cancel (409)", async () => {
    const creds = await createAccount();
    const { supplier, reference, lineIds } = await sentOrder(creds, { channel: "pull" });
    expect((await cancel(creds, reference, { line_ids: [lineIds[0]] })).status).toBe(200);
    expect(await refused(creds, () => cancel(creds, reference, { line_ids: [lineIds[0]] }))).toEqual(
      conflict(`Order line ${lineIds[0]} already has a cancellation waiting for supplier ${supplier.name}'s answer.`),
    );
    expect(await refused(creds, () => cancel(creds, reference, { lines: [{ line_id: lineIds[1] }, { line_id: lineIds[0], quantity: 1 }] }))).toEqual(
      conflict(`Order line ${lineIds[0]} already has a cancellation waiting for supplier ${supplier.name}'s answer.`),
    );
    // The whole order: the line not yet asked for is; then nothing is left.
    const whole = await cancel(creds, reference);
    expect(whole.json.order_lines.map((l: { cancellation: { quantity: number } }) => l.cancellation?.quantity)).toEqual([5, 1]);
    expect(await refused(creds, () => cancel(creds, reference))).toEqual(
      conflict(`Order ${reference} has nothing left to cancel: every line is skipped, declined, shipped or already being cancelled.`),
    );
  });

  it("a finished line: skipped, declined, or shipped in full (409)", async () => {
    const creds = await createAccount();
    await call("PATCH", "/api/v1/settings", { creds, body: { reroute_enabled: false } });
    const { supplier, reference, lineIds } = await sentOrder(creds, { channel: "pull" }, orderPayload({
      products: [
        { external_id: "a", name: "A", quantity: 2, price: 1 },
        { external_id: "b", name: "B", quantity: 2, price: 1 },
        { external_id: "c", name: "C", quantity: 2, price: 1 },
      ],
    }));
    const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key;
    await answer(key, [
      { line_id: lineIds[0], action: "decline", reason: "no" },
      { line_id: lineIds[1], action: "ship", quantity: 2 },
    ]);
    expect(await refused(creds, () => cancel(creds, reference, { line_ids: [lineIds[2], lineIds[0]] }))).toEqual(
      conflict(`Order line ${lineIds[0]} is declined; it cannot be cancelled.`),
    );
    expect(await refused(creds, () => cancel(creds, reference, { lines: [{ line_id: lineIds[1], quantity: 1 }] }))).toEqual(
      conflict(`Order line ${lineIds[1]} was shipped in full; it cannot be cancelled.`),
    );
    const other = await createAccount();
    const pending = await pendingOrder(other);
    await cancel(other, pending.reference, { line_ids: [pending.lineIds[0]] });
    expect(await refused(other, () => cancel(other, pending.reference, { line_ids: [pending.lineIds[0]] }))).toEqual(
      conflict(`Order line ${pending.lineIds[0]} is skipped; it cannot be cancelled.`),
    );
  });
});

describe("cancel requests that are not valid (422)", () => {
  it("names what is wrong: unknown lines, too much, duplicates, both lists, empty lists, quantities out of range", async () => {
    const creds = await createAccount();
    const { reference, lineIds } = await pendingOrder(creds);
    const cases: [unknown, Record<string, string[]>][] = [
      [{ line_ids: [lineIds[0], 999_999_999] }, { "line_ids.1": ["The selected line_ids.1 is invalid."] }],
      [{ lines: [{ line_id: 999_999_999 }] }, { "lines.0.line_id": ["The selected lines.0.line_id is invalid."] }],
      [{ lines: [{ line_id: lineIds[0], quantity: 4 }] }, { "lines.0.quantity": ["The lines.0.quantity field must not be greater than 3."] }],
      [{ lines: [{ line_id: lineIds[0], quantity: 0 }] }, { "lines.0.quantity": ["The lines.0.quantity field must be at least 1."] }],
      [{ lines: [{ line_id: lineIds[0], quantity: 1_000_001 }] }, { "lines.0.quantity": ["The lines.0.quantity field must not be greater than 1000000."] }],
      [{ lines: [{ line_id: lineIds[0], quantity: 1.5 }] }, { "lines.0.quantity": ["The lines.0.quantity field must be an integer."] }],
      [{ line_ids: [lineIds[0], lineIds[0]] }, { "line_ids.1": ["The line_ids.1 field has a duplicate value."] }],
      [{ lines: [{ line_id: lineIds[1] }, { line_id: lineIds[1], quantity: 1 }] }, { "lines.1.line_id": ["The lines.1.line_id field has a duplicate value."] }],
      [{ line_ids: [lineIds[0]], lines: [{ line_id: lineIds[1] }] }, { lines: ["The lines field is prohibited when line_ids is present."] }],
      [{ line_ids: [] }, { line_ids: ["The line_ids field is required."] }],
      [{ lines: [] }, { lines: ["The lines field is required."] }],
      [{ line_ids: ["x"] }, { "line_ids.0": ["The line_ids.0 field must be an integer."] }],
      [{ reason: "x".repeat(501) }, { reason: ["The reason field must not be greater than 500 characters."] }],
    ];
    for (const [body, errors] of cases) expect(await refused(creds, () => cancel(creds, reference, body)), JSON.stringify(body)).toEqual(invalid(errors));
  });

  it("takes a 500-character reason, and 500 line ids (and lines), not 501", async () => {
    const creds = await createAccount();
    const { reference, lineIds } = await pendingOrder(creds, 500);
    const over = [...lineIds, lineIds[0]];
    expect(await refused(creds, () => cancel(creds, reference, { line_ids: over }))).toEqual(invalid({ line_ids: ["The line_ids field must not have more than 500 items."] }));
    expect(await refused(creds, () => cancel(creds, reference, { lines: over.map((id) => ({ line_id: id })) }))).toEqual(
      invalid({ lines: ["The lines field must not have more than 500 items."] }),
    );
    const half = lineIds.slice(0, 250);
    const byQuantity = await cancel(creds, reference, { lines: half.map((id) => ({ line_id: id, quantity: 1 })), reason: "r".repeat(500) });
    expect(byQuantity.status).toBe(200);
    // Each of the 250 gave 1 of its 3 to a new skipped line.
    expect(byQuantity.json.order_lines).toHaveLength(750);
    const all = await cancel(creds, reference, { line_ids: lineIds, reason: "r".repeat(500) });
    expect(all.status).toBe(200);
    const lines = all.json.order_lines as { id: number; current_status: string; quantity: number; logs: { message: string }[] }[];
    expect(lines.filter((l) => lineIds.includes(l.id)).every((l) => l.current_status === "skipped")).toBe(true);
    expect(lines.reduce((sum, l) => sum + l.quantity, 0)).toBe(1500);
    expect(lines.find((l) => l.id === lineIds[499])!.logs.at(-1)!.message).toBe(`Cancelled: ${"r".repeat(500)}`);
  });

  it("the shop's record of a supplier's answer: a line without a waiting cancellation is a 409, a refusal needs a reason", async () => {
    const creds = await createAccount();
    const { reference, lineIds } = await pendingOrder(creds);
    const record = (answers: unknown) => call("POST", `/api/v1/orders/${reference}/cancellations/answers`, { creds, body: { answers } });
    expect(await refused(creds, () => record([{ line_id: lineIds[0], action: "confirm" }]))).toEqual(conflict(`Order line ${lineIds[0]} has no cancellation waiting for an answer.`));
    expect(await refused(creds, () => record([{ line_id: lineIds[0], action: "refuse" }]))).toEqual(invalid({ "answers.0.reason": ["The answers.0.reason field is required when action is refuse."] }));
    expect(await refused(creds, () => record([{ line_id: 999_999_999, action: "confirm" }]))).toEqual(invalid({ "answers.0.line_id": ["The selected answers.0.line_id is invalid."] }));
    expect(await refused(creds, () => record([{ line_id: lineIds[0], action: "maybe" }]))).toEqual(invalid({ "answers.0.action": ["The selected answers.0.action is invalid. Allowed values: confirm, refuse."] }));
  });

  it("the supplier's answers to a cancellation: none waiting (409), another supplier's line (404), a refusal without a reason (422)", async () => {
    const creds = await createAccount();
    const { supplier, reference, lineIds } = await sentOrder(creds, { channel: "pull" });
    const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key;
    const other = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Other", channel: "pull" } });
    const otherKey = (await call("POST", `/api/v1/suppliers/${other.json.id}/keys`, { creds, body: {} })).json.key;
    expect(await refused(creds, () => answer(key, [{ line_id: lineIds[0], action: "confirm_cancellation" }]))).toEqual(
      conflict(`Order line ${lineIds[0]} has no cancellation waiting for an answer.`),
    );
    await cancel(creds, reference, { line_ids: [lineIds[0]] });
    expect(await refused(creds, () => answer(otherKey, [{ line_id: lineIds[0], action: "confirm_cancellation" }]))).toEqual({
      status: 404,
      json: { message: "Not Found", error: `Order line with id '${lineIds[0]}' not found` },
    });
    expect(await refused(creds, () => answer(key, [{ line_id: lineIds[0], action: "refuse_cancellation" }]))).toEqual(
      invalid({ "answers.0.reason": ["The answers.0.reason field is required when action is refuse_cancellation."] }),
    );
    // Confirmed twice in one call: the second finds none waiting; nothing of the call is written.
    expect(
      await refused(creds, () =>
        answer(key, [
          { line_id: lineIds[0], action: "confirm_cancellation" },
          { line_id: lineIds[0], action: "confirm_cancellation" },
        ]),
      ),
    ).toEqual(conflict(`Order line ${lineIds[0]} has no cancellation waiting for an answer.`));
    expect(await refused(creds, () => call("POST", "/api/v1/supplier/cancellations/999999/ack", { headers: { authorization: `Bearer ${key}` } }))).toEqual({
      status: 404,
      json: { message: "Not Found", error: "Cancellation with id '999999' not found" },
    });
  });
});

describe("settings and supplier deadlines at their limits", () => {
  it("reroute_max_attempts 1 to 10; deadlines 1 to 720 hours and 1 to 365 days; null clears", async () => {
    const creds = await createAccount();
    const patch = (body: unknown) => call("PATCH", "/api/v1/settings", { creds, body });
    expect((await patch({ reroute_max_attempts: 10 })).json).toEqual({ reroute_enabled: true, reroute_max_attempts: 10, currency: "EUR", archive_after_days: 90 });
    expect((await patch({ reroute_max_attempts: 1 })).json).toEqual({ reroute_enabled: true, reroute_max_attempts: 1, currency: "EUR", archive_after_days: 90 });
    expect(await refused(creds, () => patch({ reroute_max_attempts: 11 }))).toEqual(invalid({ reroute_max_attempts: ["The reroute_max_attempts field must not be greater than 10."] }));
    expect(await refused(creds, () => patch({ reroute_max_attempts: 0 }))).toEqual(invalid({ reroute_max_attempts: ["The reroute_max_attempts field must be at least 1."] }));
    expect(await refused(creds, () => patch({ reroute_enabled: "perhaps" }))).toEqual(invalid({ reroute_enabled: ["The reroute_enabled field must be true or false."] }));

    const supplier = (await call("POST", "/api/v1/suppliers", { creds, body: { name: "Deadlines", acknowledgement_deadline_hours: 720, shipping_deadline_days: 365 } })).json;
    expect(supplier).toMatchObject({ acknowledgement_deadline_hours: 720, acknowledgement_deadline_reroute: false, shipping_deadline_days: 365 });
    const update = (body: unknown) => call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body });
    expect(await refused(creds, () => update({ acknowledgement_deadline_hours: 721, shipping_deadline_days: 366 }))).toEqual(
      invalid({
        acknowledgement_deadline_hours: ["The acknowledgement_deadline_hours field must not be greater than 720."],
        shipping_deadline_days: ["The shipping_deadline_days field must not be greater than 365."],
      }),
    );
    expect(await refused(creds, () => update({ acknowledgement_deadline_hours: 0 }))).toEqual(
      invalid({ acknowledgement_deadline_hours: ["The acknowledgement_deadline_hours field must be at least 1."] }),
    );
    expect((await update({ acknowledgement_deadline_hours: 1, acknowledgement_deadline_reroute: true, shipping_deadline_days: null })).json).toMatchObject({
      acknowledgement_deadline_hours: 1,
      acknowledgement_deadline_reroute: true,
      shipping_deadline_days: null,
    });
  });
});
