// Accounts pinned to a shard and moved between shards through the operator's API, as the
// `npm run admin -- accounts:move` command does (src/shards/move.ts).
import { expect } from "vitest";
import { ADMIN, call, type Credentials } from "./http";
import { unique } from "./factories";

/** A new account on the given shard, with one API key. */
export async function accountOn(shard: number): Promise<Credentials> {
  const account = await call("POST", "/admin/v1/accounts", { headers: ADMIN, body: { name: unique("mover"), shard } });
  expect(account.status, account.text).toBe(201);
  const key = await call("POST", `/admin/v1/accounts/${account.json.id}/api-keys`, { headers: ADMIN, body: {} });
  expect(key.status, key.text).toBe(201);
  return { accountId: account.json.id, apiKey: key.json.api_key };
}

/** Calls the move command until it is done, or once with pause_after. */
export async function move(accountId: number, body: Record<string, unknown>) {
  for (let call_ = 0; call_ < 50; call_++) {
    const res = await call("POST", `/admin/v1/accounts/${accountId}/move`, { headers: ADMIN, body });
    expect(res.status, res.text).toBe(200);
    if (res.json.done || body.pause_after) return res.json;
  }
  throw new Error("The move did not finish in 50 calls");
}
