// Shop connections through the API (src/shops/connections.*): the exact JSON of create, list, get,
// patch and delete; the credentials sealed at rest and only ever shown as hints; another account's
// connection not found; a deleted one gone.
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { BASE, call } from "../helpers/http";
import { createConnection, ISO, storedConnections, WOO_BODY, WOO_KEYS } from "./support";

describe("shop connections", () => {
  it("creates a connection: base_url without its trailing slash, the settings' defaults, the credentials as hints only", async () => {
    const creds = await createAccount();
    const created = await call("POST", "/api/v1/shop-connections", { creds, body: WOO_BODY });
    const expected = {
      id: expect.any(Number),
      platform: "woocommerce",
      name: "Main shop",
      base_url: "https://shop.example.com",
      credentials: { consumer_key: "…ab12", consumer_secret: "…cd34" },
      sources: null,
      settings: { mode: "live", complete_status: "completed", tracking: "auto" },
      active: true,
      created_at: ISO,
      updated_at: ISO,
    };
    expect([created.status, created.json]).toEqual([201, expected]);
    const fetched = await call("GET", `/api/v1/shop-connections/${created.json.id}`, { creds });
    expect([fetched.status, fetched.json]).toEqual([200, created.json]);

    // At rest: sealed, the secret nowhere in the row.
    const [row] = await storedConnections(creds.accountId);
    expect(row.credentials_sealed).toMatch(/^v1\.[0-9a-f]{8}\.[\w-]+\.[\w-]+$/);
    for (const secret of Object.values(WOO_KEYS)) {
      expect(JSON.stringify(row)).not.toContain(secret);
      expect(created.text + fetched.text).not.toContain(secret);
    }
  });

  it("takes each platform's credentials and settings, with sources and paused", async () => {
    const creds = await createAccount();
    const bodies = [
      { platform: "shopware", name: "SW", base_url: "https://sw.example.com", credentials: { client_id: "SWIAQWERTYUIOP1234", client_secret: "c2VjcmV0LXNlY3JldC1zZWNyZXQ" }, settings: { mode: "dry_run" } },
      { platform: "magento", name: "M2", base_url: "https://m2.example.com/shop/", credentials: { access_token: "m2tokenm2tokenm2tokenWXYZ" }, settings: { notify: false }, active: false },
      { platform: "prestashop", name: "PS", base_url: "http://localhost:8080", credentials: { webservice_key: "PSKEYPSKEYPSKEYPSKEYPSKEYPSKEY12" }, sources: ["ps.example.com", "PS backoffice"], settings: { shipped_state_id: 5 } },
      { platform: "woocommerce", name: "Local", base_url: "http://127.0.0.1:9999/s/abc", credentials: { consumer_key: "k", consumer_secret: "12345678" }, settings: { tracking: "note", complete_status: "wc-shipped" } },
    ];
    const answers = [];
    for (const body of bodies) {
      const res = await call("POST", "/api/v1/shop-connections", { creds, body });
      expect(res.status, res.text).toBe(201);
      answers.push({ platform: res.json.platform, base_url: res.json.base_url, credentials: res.json.credentials, sources: res.json.sources, settings: res.json.settings, active: res.json.active });
    }
    expect(answers).toEqual([
      { platform: "shopware", base_url: "https://sw.example.com", credentials: { client_id: "…1234", client_secret: "…yZXQ" }, sources: null, settings: { mode: "dry_run" }, active: true },
      { platform: "magento", base_url: "https://m2.example.com/shop", credentials: { access_token: "…WXYZ" }, sources: null, settings: { mode: "live", notify: false, inventory: "msi", source_code: "default", ean_attribute: null }, active: false },
      { platform: "prestashop", base_url: "http://localhost:8080", credentials: { webservice_key: "…EY12" }, sources: ["ps.example.com", "PS backoffice"], settings: { mode: "live", shipped_state_id: 5, hold_state_id: null }, active: true },
      // A one-character key shows nothing of itself; an 8-character one its last 2.
      { platform: "woocommerce", base_url: "http://127.0.0.1:9999/s/abc", credentials: { consumer_key: "…", consumer_secret: "…78" }, sources: null, settings: { mode: "live", complete_status: "wc-shipped", tracking: "note" }, active: true },
    ]);
  });

  it("lists the account's connections, oldest first, paginated, without the deleted ones", async () => {
    const creds = await createAccount();
    const a = await createConnection(creds, { ...WOO_BODY, name: "A" });
    const b = await createConnection(creds, { ...WOO_BODY, name: "B" });
    const c = await createConnection(creds, { ...WOO_BODY, name: "C" });
    expect((await call("DELETE", `/api/v1/shop-connections/${b.id}`, { creds })).status).toBe(204);
    const page = await call("GET", "/api/v1/shop-connections?per_page=1&page=2", { creds });
    expect([page.status, page.json]).toEqual([
      200,
      {
        current_page: 2,
        data: [c],
        links: {
          first: `${BASE}/api/v1/shop-connections?per_page=1&page=1`,
          last: `${BASE}/api/v1/shop-connections?per_page=1&page=2`,
          prev: `${BASE}/api/v1/shop-connections?per_page=1&page=1`,
          next: null,
        },
        meta: { current_page: 2, from: 2, last_page: 2, path: `${BASE}/api/v1/shop-connections`, per_page: 1, to: 2, total: 2 },
      },
    ]);
    expect((await call("GET", "/api/v1/shop-connections", { creds })).json.data).toEqual([a, c]);
  });

  it("updates only the fields sent: settings laid over the stored ones, new credentials sealed and hinted, sources cleared with null", async () => {
    const creds = await createAccount();
    const created = await createConnection(creds, { ...WOO_BODY, sources: ["shop.example.com"], settings: { mode: "dry_run", tracking: "note" } });
    const path = `/api/v1/shop-connections/${created.id}`;
    const sealedBefore = (await storedConnections(creds.accountId))[0].credentials_sealed;

    const paused = await call("PATCH", path, { creds, body: { active: false, settings: { mode: "live" }, name: "Renamed", platform: "woocommerce" } });
    expect([paused.status, paused.json]).toEqual([
      200,
      { ...created, name: "Renamed", active: false, settings: { mode: "live", complete_status: "completed", tracking: "note" }, updated_at: ISO },
    ]);
    expect((await storedConnections(creds.accountId))[0].credentials_sealed).toBe(sealedBefore);

    const newKeys = { consumer_key: "ck_rotated_000000000000000000000000wxyz", consumer_secret: "cs_rotated_11111111111111111111111111vw" };
    const rekeyed = await call("PATCH", path, { creds, body: { credentials: newKeys, sources: null, base_url: "https://new.example.com/wp//", active: true } });
    expect([rekeyed.status, rekeyed.json]).toEqual([
      200,
      { ...paused.json, base_url: "https://new.example.com/wp", credentials: { consumer_key: "…wxyz", consumer_secret: "…11vw" }, sources: null, active: true, updated_at: ISO },
    ]);
    const [row] = await storedConnections(creds.accountId);
    expect(row.credentials_sealed).not.toBe(sealedBefore);
    expect(JSON.stringify(row)).not.toContain(newKeys.consumer_secret);
    expect(rekeyed.text).not.toContain(newKeys.consumer_secret);
    expect((await call("GET", path, { creds })).json).toEqual(rekeyed.json);
  });

  it("deletes softly: gone from reads, lists and writes; the row kept for the write-backs' history", async () => {
    const creds = await createAccount();
    const created = await createConnection(creds);
    const path = `/api/v1/shop-connections/${created.id}`;
    const deleted = await call("DELETE", path, { creds });
    expect([deleted.status, deleted.text]).toEqual([204, ""]);
    const gone = { message: "Not Found", error: `Shop connection with id '${created.id}' not found` };
    for (const [method, p, body] of [["GET", path], ["PATCH", path, { active: true }], ["DELETE", path], ["POST", `${path}/test`]] as const) {
      const res = await call(method, p, { creds, body });
      expect({ method, p, status: res.status, json: res.json }).toEqual({ method, p, status: 404, json: gone });
    }
    expect((await call("GET", "/api/v1/shop-connections", { creds })).json.meta.total).toBe(0);
    const rows = await storedConnections(creds.accountId);
    expect(rows.map((r) => [r.id, r.name, r.deleted_at === null])).toEqual([[created.id, "Main shop", false]]);
  });

  it("answers 404 for another account's connection, and for an id that is no id, changing nothing", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    const created = await createConnection(owner);
    const path = `/api/v1/shop-connections/${created.id}`;
    const notFound = { message: "Not Found", error: `Shop connection with id '${created.id}' not found` };
    for (const [method, body] of [["GET"], ["PATCH", { active: false, credentials: { consumer_key: "x", consumer_secret: "y" } }], ["DELETE"]] as const) {
      const res = await call(method, path, { creds: other, body });
      expect({ method, status: res.status, json: res.json }).toEqual({ method, status: 404, json: notFound });
    }
    const tested = await call("POST", `${path}/test`, { creds: other });
    expect([tested.status, tested.json]).toEqual([404, notFound]);
    expect((await call("GET", "/api/v1/shop-connections", { creds: other })).json.data).toEqual([]);
    expect((await call("GET", path, { creds: owner })).json).toEqual(created);
    const bad = await call("GET", "/api/v1/shop-connections/abc", { creds: owner });
    expect([bad.status, bad.json]).toEqual([404, { message: "Not Found", error: "Shop connection with id 'abc' not found" }]);
  });
});
