// Rotating SECRETS_KEY (docs/operations.md): with the new key as SECRETS_KEY and the old one as
// SECRETS_KEY_PREVIOUS, POST /admin/v1/secrets/reseal seals every shop connection's credentials
// (on every shard) under the new key, so that the old one can go; what no key opens is named.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { createApp } from "../../src/app";
import type { Bindings } from "../../src/env";
import { ADMIN, authHeaders, BASE, type Credentials } from "../helpers/http";
import { accountOn } from "../helpers/moves";
import { WOO_BODY } from "../shops/support";

const app = createApp();
const OLD = (env as unknown as Bindings).SECRETS_KEY as string;
const NEW = "rotated-secrets-key-fedcba9876543210fedcba9876543210";
const STRAY = "a-key-nobody-holds-any-more-0000000000000000000000";

/** The Worker with other secrets: the rotation's two keys, or one key alone. */
const withKeys = (current: string, previous?: string) => ({ ...env, SECRETS_KEY: current, SECRETS_KEY_PREVIOUS: previous }) as unknown as Bindings;

async function send(view: Bindings, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const ctx = createExecutionContext();
  const res = await app.fetch(
    new Request(`${BASE}${path}`, { method, headers: { ...headers, "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) }),
    view,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, json: await res.json<any>() };
}

/** Calls the re-seal until it is done, as `npm run admin -- reseal` does; the answers' sums. */
async function reseal(view: Bindings) {
  const total = { resealed: 0, already_current: 0, unopenable: [] as { shard: number; id: number }[], calls: 0 };
  let next: unknown = {};
  for (;;) {
    const res = await send(view, "POST", "/admin/v1/secrets/reseal", ADMIN, next);
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    total.calls++;
    total.resealed += res.json.resealed;
    total.already_current += res.json.already_current;
    total.unopenable.push(...res.json.unopenable);
    if (res.json.done) return total;
    next = res.json.next;
  }
}

const closed = new URL(inject("closedPortUrl"));
const refused = { ok: false, checks: [{ name: "connection", ok: false, message: `The connection to ${closed.host} was refused: nothing listens on port ${closed.port} there.` }] };
const stale = {
  ok: false,
  checks: [{ name: "credentials", ok: false, message: "The stored credentials cannot be used: they were sealed under a key this service no longer holds. Enter them again (edit the connection)." }],
};
/** /test opens the credentials first: "refused" means they opened, "stale" that they did not. */
const testWith = (view: Bindings, creds: Credentials, id: number) => send(view, "POST", `/api/v1/shop-connections/${id}/test`, authHeaders(creds)).then((r) => r.json);

describe("re-sealing the shops' credentials after a SECRETS_KEY rotation", () => {
  it("seals every connection on every shard under the new key, names the ones no key opens, and changes nothing when run again", async () => {
    const body = { ...WOO_BODY, base_url: closed.origin };
    const onZero = await accountOn(0);
    const onOne = await accountOn(1);
    const a = await send(withKeys(OLD), "POST", "/api/v1/shop-connections", authHeaders(onZero), body);
    const b = await send(withKeys(OLD), "POST", "/api/v1/shop-connections", authHeaders(onOne), body);
    const lost = await send(withKeys(STRAY), "POST", "/api/v1/shop-connections", authHeaders(onOne), body);
    expect([a.status, b.status, lost.status]).toEqual([201, 201, 201]);

    // Before: the new key alone opens neither.
    expect(await testWith(withKeys(NEW), onZero, a.json.id)).toEqual(stale);

    const rotation = withKeys(NEW, OLD);
    // Going on from a cursor: shard 1 after b's id leaves b (and shard 0) as they were.
    const fromCursor = await send(rotation, "POST", "/admin/v1/secrets/reseal", ADMIN, { shard: 1, after_id: b.json.id });
    expect(fromCursor.json).toMatchObject({ done: true, next: null });
    expect(await testWith(withKeys(NEW), onOne, b.json.id)).toEqual(stale);
    expect(await testWith(withKeys(NEW), onZero, a.json.id)).toEqual(stale);

    const first = await reseal(rotation);
    expect(first.resealed).toBeGreaterThanOrEqual(2);
    expect(first.unopenable).toContainEqual({ shard: 1, id: lost.json.id });
    expect(first.unopenable).not.toContainEqual({ shard: 0, id: a.json.id });

    // After: the new key alone opens them, the old one alone no longer does; the API shows the same hints.
    expect(await testWith(withKeys(NEW), onZero, a.json.id)).toEqual(refused);
    expect(await testWith(withKeys(NEW), onOne, b.json.id)).toEqual(refused);
    expect(await testWith(withKeys(OLD), onOne, b.json.id)).toEqual(stale);
    expect((await send(withKeys(NEW), "GET", `/api/v1/shop-connections/${a.json.id}`, authHeaders(onZero))).json).toEqual(a.json);

    const again = await reseal(rotation);
    expect(again.resealed).toBe(0);
    expect(again.already_current).toBe(first.already_current + first.resealed);
    expect(again.unopenable).toEqual(first.unopenable);

    // The suite's other files seal under the test key: rotate back.
    await reseal(withKeys(OLD, NEW));
    expect(await testWith(withKeys(OLD), onZero, a.json.id)).toEqual(refused);
  });

  it("answers a cursor past the last shard as done, 503 without SECRETS_KEY, and 422 for a bad cursor", async () => {
    const past = await send(withKeys(OLD), "POST", "/admin/v1/secrets/reseal", ADMIN, { shard: 255, after_id: 0 });
    expect(past).toEqual({ status: 200, json: { resealed: 0, already_current: 0, unopenable: [], done: true, next: null } });
    const keyless = await send({ ...env, SECRETS_KEY: undefined } as unknown as Bindings, "POST", "/admin/v1/secrets/reseal", ADMIN, {});
    expect(keyless).toEqual({
      status: 503,
      json: { message: "Service Unavailable", error: 'SECRETS_KEY is not set: this Worker cannot keep credentials (docs/operations.md, "Secrets")' },
    });
    const bad = await send(withKeys(OLD), "POST", "/admin/v1/secrets/reseal", ADMIN, { shard: -1, after_id: "x" });
    expect(bad).toEqual({
      status: 422,
      json: { message: "Errors", errors: { shard: ["The shard field must be at least 0."], after_id: ["The after_id field must be an integer."] } },
    });
  });
});
