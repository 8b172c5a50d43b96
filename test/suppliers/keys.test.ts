// A supplier's keys: listed (never the secret), revoked at once, the portal sessions opened with a
// revoked key ended in the same batch; another account's supplier is not found.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { call } from "../helpers/http";

const iso = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/);

describe("GET /api/v1/suppliers/{id}/keys", () => {
  it("lists the keys newest first without their secrets, and a revoke ends the key's portal sessions", async () => {
    const creds = await createAccount();
    const supplier = (await call("POST", "/api/v1/suppliers", { creds, body: { name: "Keyed", channel: "pull" } })).json;
    const first = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: { name: "erp" } })).json;
    const second = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json;
    const now = new Date().toISOString();
    await env.DB.prepare(
      "INSERT INTO console_sessions (token_hash, role, account_id, supplier_key_id, created_at, last_seen_at, expires_at) VALUES (?1, 'supplier', ?2, ?3, ?4, ?4, ?5)",
    )
      .bind(`portal-${first.id}`, creds.accountId, first.id, now, new Date(Date.now() + 3_600_000).toISOString())
      .run();
    expect((await call("DELETE", `/api/v1/suppliers/${supplier.id}/keys/${first.id}`, { creds })).status).toBe(204);
    const sessions = await env.DB.prepare("SELECT count(*) AS n FROM console_sessions WHERE supplier_key_id = ?1").bind(first.id).first<{ n: number }>();
    expect(sessions!.n).toBe(0);

    const list = await call("GET", `/api/v1/suppliers/${supplier.id}/keys`, { creds });
    expect(list.status).toBe(200);
    expect(list.json).toEqual({
      data: [
        { id: second.id, supplier_id: supplier.id, name: null, prefix: second.prefix, revoked_at: null, created_at: iso },
        { id: first.id, supplier_id: supplier.id, name: "erp", prefix: first.prefix, revoked_at: iso, created_at: iso },
      ],
    });
    expect(list.text).not.toContain(first.key);

    const other = await createAccount();
    const theirs = await call("GET", `/api/v1/suppliers/${supplier.id}/keys`, { creds: other });
    expect(theirs.status).toBe(404);
    expect(theirs.json).toEqual({ message: "Not Found", error: `Supplier with id '${supplier.id}' not found` });
  });
});
