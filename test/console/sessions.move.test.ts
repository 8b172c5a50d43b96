// Console sessions across a move of their account (issue 14): the cookie names the account, not
// its shard, so a shop or a supplier stays signed in while the operator moves the account and after;
// during the move's write freeze pages read and writes wait (503); a cookie finds a session only by
// its secret, and only for the account it names. Raw reads go to the shard named.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { forgetAccount, shardOfAccount } from "../../src/shards/directory";
import { orderPayload } from "../helpers/factories";
import { ADMIN, BASE, call, type Credentials } from "../helpers/http";
import { accountOn, move } from "../helpers/moves";
import { send, signIn, signInTo, type Jar } from "../helpers/console-http";
import { waitFor } from "../helpers/wait";

const SHOP = "__Host-oi_shop_session";
const SUPPLIER = "__Host-oi_supplier_session";
const shards = [env.DB, env.SHARD_1];
const FORM = { origin: BASE, "content-type": "application/x-www-form-urlencoded" };
const MOVING = "The account is being moved to another database; its data can be read, and writes work again in a moment.";

async function sessionsOn(shard: number, accountId: number): Promise<number> {
  return (await shards[shard].prepare("SELECT count(*) AS n FROM console_sessions WHERE account_id = ?").bind(accountId).first<{ n: number }>())!.n;
}

async function shopWithOrder(shard: number) {
  const creds = await accountOn(shard);
  const created = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
  expect(created.status, created.text).toBe(200);
  const { res, jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
  expect(res.status).toBe(303);
  return { creds, reference: String(created.json.reference), jar };
}

/** The orders page as the jar's browser sees it: its status, and whether it lists the order. */
async function ordersPage(jar: Jar, reference: string) {
  const page = await send("/console/orders", { jar });
  return { status: page.status, location: page.headers.get("location"), listed: (await page.text()).includes(`href="/console/orders/${reference}"`) };
}
const SHOWN = { status: 200, location: null, listed: true };
const SIGN_IN = { status: 303, location: "/console/sign-in?next=%2Fconsole%2Forders", listed: false };

/** The session's CSRF token, from a page of the session. */
async function csrfOf(jar: Jar, path: string) {
  return /name="_csrf" value="([0-9a-f]{64})"/.exec(await (await send(path, { jar })).text())![1];
}

/**
 * Makes this isolate's directory cache say the account is on `shard` while the directory says
 * otherwise: what another isolate holds when the move ran elsewhere (the move's own isolate, this
 * one, forgets the account). The real cache, filled by the real lookup from a directory row that
 * says `shard` for a moment.
 */
async function staleCache(accountId: number, shard: number) {
  const row = await env.DIRECTORY.prepare("SELECT shard FROM directory_accounts WHERE id = ?").bind(accountId).first<{ shard: number }>();
  await env.DIRECTORY.prepare("UPDATE directory_accounts SET shard = ? WHERE id = ?").bind(shard, accountId).run();
  forgetAccount(accountId);
  expect(await shardOfAccount(env, accountId)).toBe(shard);
  await env.DIRECTORY.prepare("UPDATE directory_accounts SET shard = ? WHERE id = ?").bind(row!.shard, accountId).run();
}

describe("a console session across its account's move", () => {
  it("keeps a shop signed in while its account moves to the other shard and back: the orders page lists its orders, no sign-in", async () => {
    const { creds, reference, jar } = await shopWithOrder(0);
    // The cookie names the account, not the shard.
    expect(jar.get(SHOP)).toMatch(new RegExp(`^a${creds.accountId}\\.[\\w-]{43}$`));
    expect(await ordersPage(jar, reference)).toEqual(SHOWN);

    await move(creds.accountId, { shard: 1 });
    expect([await sessionsOn(0, creds.accountId), await sessionsOn(1, creds.accountId)]).toEqual([0, 1]);
    expect(await ordersPage(jar, reference)).toEqual(SHOWN);
    expect((await send(`/console/orders/${reference}`, { jar })).status).toBe(200);

    await move(creds.accountId, { shard: 0 });
    expect([await sessionsOn(0, creds.accountId), await sessionsOn(1, creds.accountId)]).toEqual([1, 0]);
    expect(await ordersPage(jar, reference)).toEqual(SHOWN);
    // Writes too: the order is blocked from the console on the shard it came back to.
    const blocked = await send(`/console/orders/${reference}/block`, { method: "POST", jar, headers: FORM, body: new URLSearchParams({ _csrf: await csrfOf(jar, "/console/orders"), reason: "" }) });
    expect([blocked.status, blocked.headers.get("location")]).toEqual([303, `/console/orders/${reference}`]);
    expect((await call("GET", `/api/v1/orders/${reference}`, { creds })).json.blocked).toBe(true);
  });

  it("keeps a supplier signed in to the portal while the shop's account moves and back, and ends the session at once when its key is revoked", async () => {
    const creds = await accountOn(0);
    const supplier = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Acme", channel: "pull" } });
    await call("POST", "/api/v1/routing-rules", { creds, body: { name: "all", conditions: [], action: { type: "assign_supplier", supplier_id: supplier.json.id } } });
    const key = await call("POST", `/api/v1/suppliers/${supplier.json.id}/keys`, { creds, body: { name: "portal" } });
    const created = await call("POST", "/api/v1/orders", { creds, body: orderPayload() });
    const reference = String(created.json.reference);
    const { res, jar } = await signInTo("/supplier", { supplier_key: key.json.key });
    expect([res.status, res.headers.get("location")]).toEqual([303, "/supplier"]);
    expect(jar.get(SUPPLIER)).toMatch(new RegExp(`^a${creds.accountId}\\.[\\w-]{43}$`));
    const portal = async () => {
      const page = await send("/supplier", { jar });
      return { status: page.status, location: page.headers.get("location"), listed: (await page.text()).includes(reference) };
    };
    await waitFor(async () => ((await portal()).listed ? true : null));

    await move(creds.accountId, { shard: 1 });
    expect(await portal()).toEqual(SHOWN);
    await move(creds.accountId, { shard: 0 });
    expect(await portal()).toEqual(SHOWN);

    expect((await call("DELETE", `/api/v1/suppliers/${supplier.json.id}/keys/${key.json.id}`, { creds })).status).toBe(204);
    expect(await portal()).toEqual({ status: 303, location: "/supplier/sign-in?next=%2Fsupplier", listed: false });
  });

  it("ends a session whose API key is revoked after the move at once", async () => {
    const { creds, reference, jar } = await shopWithOrder(0);
    await move(creds.accountId, { shard: 1 });
    expect(await ordersPage(jar, reference)).toEqual(SHOWN);
    const keys = await call("GET", `/admin/v1/accounts/${creds.accountId}/api-keys`, { headers: ADMIN });
    expect((await call("DELETE", `/admin/v1/api-keys/${keys.json.data[0].id}`, { headers: ADMIN })).status).toBe(204);
    const ended = await send("/console/orders", { jar });
    expect([ended.status, ended.headers.get("location")]).toEqual([303, "/console/sign-in?next=%2Fconsole%2Forders"]);
    // The cookie is cleared, and the sign-in page says why.
    expect(jar.has(SHOP)).toBe(false);
    expect(await (await send("/console/sign-in?next=%2Fconsole%2Forders", { jar })).text()).toContain("Your session has ended. Sign in again.");
  });

  it("follows the directory when this isolate's cached shard is stale: the session is gone from it, or its account is leaving it", async () => {
    // Gone: moved and its rows deleted; the cache still says shard 0.
    const gone = await shopWithOrder(0);
    await move(gone.creds.accountId, { shard: 1 });
    await staleCache(gone.creds.accountId, 0);
    expect(await ordersPage(gone.jar, gone.reference)).toEqual(SHOWN);
    // The request dropped the stale entry and read the directory again.
    expect(await shardOfAccount(env, gone.creds.accountId)).toBe(1);

    // Leaving: switched, its rows on shard 0 not yet deleted (they take no writes).
    const leaving = await shopWithOrder(0);
    const switched = await move(leaving.creds.accountId, { shard: 1, pause_after: "switch" });
    expect(switched.phase).toBe("delete");
    expect([await sessionsOn(0, leaving.creds.accountId), await sessionsOn(1, leaving.creds.accountId)]).toEqual([1, 1]);
    await staleCache(leaving.creds.accountId, 0);
    const csrf = await csrfOf(leaving.jar, "/console/orders");
    expect(await shardOfAccount(env, leaving.creds.accountId)).toBe(1);
    // A write lands on shard 1 (shard 0 refuses the leaving account's writes).
    await staleCache(leaving.creds.accountId, 0);
    const blocked = await send(`/console/orders/${leaving.reference}/block`, { method: "POST", jar: leaving.jar, headers: FORM, body: new URLSearchParams({ _csrf: csrf, reason: "" }) });
    expect([blocked.status, blocked.headers.get("location")]).toEqual([303, `/console/orders/${leaving.reference}`]);
    const onShard1 = await env.SHARD_1.prepare("SELECT blocked FROM orders WHERE reference = ?").bind(leaving.reference).first<{ blocked: number }>();
    expect(onShard1).toEqual({ blocked: 1 });
    // A fresh sign-in opens its session on shard 1 too.
    await staleCache(leaving.creds.accountId, 0);
    const again = await signIn({ account_id: String(leaving.creds.accountId), api_key: leaving.creds.apiKey });
    expect(again.res.status).toBe(303);
    expect([await sessionsOn(0, leaving.creds.accountId), await sessionsOn(1, leaving.creds.accountId)]).toEqual([1, 2]);
    await move(leaving.creds.accountId, { shard: 1 });
    expect(await ordersPage(leaving.jar, leaving.reference)).toEqual(SHOWN);
  });
});

describe("a console session during its account's write freeze", () => {
  it("shows pages that only read; a write answers 503 with Retry-After and the API's sentence on the console's error page; after the move it works", async () => {
    const { creds, reference, jar } = await shopWithOrder(0);
    const csrf = await csrfOf(jar, "/console/orders");
    const frozen = await move(creds.accountId, { shard: 1, pause_after: "freeze" });
    expect(frozen.phase).toBe("copy");

    expect(await ordersPage(jar, reference)).toEqual(SHOWN);
    expect((await send(`/console/orders/${reference}`, { jar })).status).toBe(200);

    const refused = await send(`/console/orders/${reference}/block`, { method: "POST", jar, headers: FORM, body: new URLSearchParams({ _csrf: csrf, reason: "" }) });
    expect([refused.status, refused.headers.get("retry-after"), refused.headers.get("content-type")]).toEqual([503, "5", "text/html; charset=UTF-8"]);
    const html = await refused.text();
    expect(html).toContain("<h1>Try again in a moment</h1>");
    expect(html).toContain(MOVING);
    // The API answers the same write the same way.
    const api = await call("POST", `/api/v1/orders/${reference}/block`, { creds, body: {} });
    expect([api.status, api.json]).toEqual([503, { message: "Service Unavailable", error: MOVING }]);

    // Signing in afresh opens a session on the account's shard: that waits too, said on the form.
    const fresh = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
    expect([fresh.res.status, fresh.res.headers.get("retry-after")]).toEqual([503, "5"]);
    expect(await fresh.res.text()).toContain("Your account is being moved to another database: signing in works again in a moment.");
    expect(fresh.jar.has(SHOP)).toBe(false);

    // The session is still there, and its write works once the move is done.
    await move(creds.accountId, { shard: 1 });
    expect(await ordersPage(jar, reference)).toEqual(SHOWN);
    const blocked = await send(`/console/orders/${reference}/block`, { method: "POST", jar, headers: FORM, body: new URLSearchParams({ _csrf: csrf, reason: "" }) });
    expect([blocked.status, blocked.headers.get("location")]).toEqual([303, `/console/orders/${reference}`]);
  });
});

describe("the session cookie", () => {
  it("finds a session only by its secret, for the account it names: another account's id, an unknown account or a garbled prefix gets the sign-in page", async () => {
    const mine = await shopWithOrder(0);
    const neighbour = await shopWithOrder(0);
    const afar = await shopWithOrder(1);
    const cookie = mine.jar.get(SHOP)!;
    expect(cookie).toMatch(new RegExp(`^a${mine.creds.accountId}\\.[\\w-]{43}$`));
    const secret = cookie.slice(cookie.indexOf(".") + 1);
    const forged = [
      `a${neighbour.creds.accountId}.${secret}`, // another account on the same shard
      `a${afar.creds.accountId}.${secret}`, // another account on the other shard
      `a999999999999.${secret}`, // no such account
      `a.${secret}`,
      `a${mine.creds.accountId}x.${secret}`,
      `a${mine.creds.accountId}.`,
      `a${mine.creds.accountId}.${secret}x`,
      `a-${mine.creds.accountId}.${secret}`,
      `1.${secret}`, // the earlier form naming a shard the session is not on
      `9.${secret}`, // a shard this deployment does not have
    ];
    for (const value of forged) {
      const jar: Jar = new Map([[SHOP, value]]);
      const page = await send("/console/orders", { jar });
      expect([value, page.status, page.headers.get("location")]).toEqual([value, 303, "/console/sign-in?next=%2Fconsole%2Forders"]);
      // Never the other account's orders, nor this one's.
      const text = await page.text();
      for (const reference of [neighbour.reference, afar.reference, mine.reference]) expect(text).not.toContain(reference);
    }
    // None of that ended the real session.
    expect(await ordersPage(mine.jar, mine.reference)).toEqual(SHOWN);
    expect(await ordersPage(neighbour.jar, neighbour.reference)).toEqual(SHOWN);
  });

  it("keeps a cookie of the earlier form (the shard and the secret; on shard 0 the secret alone) working, and rewrites it to name the account", async () => {
    for (const shard of [0, 1]) {
      const { creds, reference, jar } = await shopWithOrder(shard);
      const secret = jar.get(SHOP)!.replace(/^a\d+\./, "");
      jar.set(SHOP, shard === 0 ? secret : `${shard}.${secret}`);
      expect(await ordersPage(jar, reference)).toEqual(SHOWN);
      expect(jar.get(SHOP)).toBe(`a${creds.accountId}.${secret}`);
      // Rewritten, it survives the next move.
      await move(creds.accountId, { shard: 1 - shard });
      expect(await ordersPage(jar, reference)).toEqual(SHOWN);
    }
  });
});
