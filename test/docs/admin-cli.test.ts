// The admin CLI (`npm run admin -- …`, scripts/admin.mjs) against a real Worker: the operator can
// list accounts, find a key's id with keys:list and revoke it, as the README says.
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { describe, expect, inject, it } from "vitest";
import { root } from "./markdown";

function admin(...args: string[]) {
  const result = spawnSync(process.execPath, [join(root, "scripts", "admin.mjs"), ...args], {
    cwd: root,
    env: { ...process.env, ADMIN_URL: inject("docsUrl"), ADMIN_TOKEN: inject("docsAdminToken") },
    encoding: "utf8",
  });
  const [, status, body] = /^(\d{3}) ?([\s\S]*)$/.exec(result.stdout.trim()) ?? [];
  return { exit: result.status, status: Number(status), body: body ? JSON.parse(body) : null, stderr: result.stderr };
}

describe("npm run admin", () => {
  it("accounts:create, accounts:list, keys:create, keys:list and keys:revoke, each through the admin API", () => {
    const created = admin("accounts:create", "CLI shop");
    expect(created).toMatchObject({ exit: 0, status: 201, body: { name: "CLI shop" } });
    const accountId = created.body.id as number;

    const listed = admin("accounts:list");
    expect(listed).toMatchObject({ exit: 0, status: 200 });
    expect(listed.body.data).toContainEqual({ id: accountId, name: "CLI shop", created_at: created.body.created_at, active_api_keys: 0, shard: created.body.shard });
    expect(listed.body.data.find((a: { name: string }) => a.name === "Demo shop")).toMatchObject({ id: inject("docsCredentials").account_id, active_api_keys: 2 });

    const key = admin("keys:create", String(accountId), "--name", "woocommerce", "--expires-at", "2030-12-31T00:00:00Z");
    expect(key).toMatchObject({ exit: 0, status: 201, body: { account_id: accountId, name: "woocommerce", expires_at: "2030-12-31T00:00:00.000000Z" } });
    expect(key.body.api_key).toMatch(/^oik_/);

    const keys = admin("keys:list", String(accountId));
    expect(keys).toMatchObject({ exit: 0, status: 200 });
    expect(keys.body.data).toEqual([
      { id: key.body.id, account_id: accountId, name: "woocommerce", prefix: key.body.prefix, created_at: key.body.created_at, last_used_at: null, expires_at: "2030-12-31T00:00:00.000000Z", revoked_at: null },
    ]);

    expect(admin("keys:revoke", String(key.body.id))).toMatchObject({ exit: 0, status: 204, body: null });
    const after = admin("keys:list", String(accountId));
    expect(after.body.data[0].revoked_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(admin("accounts:list").body.data.find((a: { id: number }) => a.id === accountId).active_api_keys).toBe(0);
  });

  it("answers an unknown account's keys with the API's 404 and a non-zero exit", () => {
    expect(admin("keys:list", "999999")).toMatchObject({ exit: 1, status: 404, body: { message: "Not Found" } });
  });

  it("accounts:move calls the move until it is done (one line per call), and the account answers from its new shard", () => {
    const created = admin("accounts:create", "CLI mover");
    const accountId = created.body.id as number;
    const to = created.body.shard === 0 ? 1 : 0;
    const result = spawnSync(process.execPath, [join(root, "scripts", "admin.mjs"), "accounts:move", String(accountId), String(to)], {
      cwd: root,
      env: { ...process.env, ADMIN_URL: inject("docsUrl"), ADMIN_TOKEN: inject("docsAdminToken") },
      encoding: "utf8",
    });
    expect(result.status).toBe(0);
    const lines = result.stdout.trim().split("\n");
    const last = /^200 (.*)$/.exec(lines[lines.length - 1])?.[1];
    expect(JSON.parse(last ?? "null")).toMatchObject({ account_id: accountId, from_shard: created.body.shard, to_shard: to, phase: "done", done: true });
    expect(admin("keys:list", String(accountId))).toMatchObject({ exit: 0, status: 200, body: { data: [] } });
  });

  it("reseal re-seals the shops' credentials under the current SECRETS_KEY until done: the demo's connection is sealed under it already", () => {
    const result = admin("reseal");
    expect(result).toMatchObject({ exit: 0, status: 200, body: { resealed: 0, unopenable: [], done: true, next: null } });
    expect(result.body.already_current).toBeGreaterThanOrEqual(1);
  });

  it("prints its usage for an unknown command, exit 2", () => {
    const result = admin("accounts:rename");
    expect(result.exit).toBe(2);
    expect(result.stderr).toContain("accounts:list [--page N]");
  });
});
