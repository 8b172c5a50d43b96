// Bad input to the shop-connection API: every 422 names its field in our shape, and nothing is
// stored; the limits at their maximum and one past; a Worker without SECRETS_KEY answers 503.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import type { Bindings } from "../../src/env";
import { createAccount } from "../helpers/factories";
import { authHeaders, BASE, call } from "../helpers/http";
import { createConnection, storedConnections, WOO_BODY, WOO_KEYS } from "./support";

const HTTP_ONLY_LOOPBACK =
  "must be an https URL; plain http is taken only for a shop on this machine (localhost, 127.0.0.0/8 or [::1]), as in local development.";
const PLATFORMS = "Allowed values: woocommerce, shopware, magento, prestashop, shopify.";

describe("shop connections: bad input", () => {
  it("answers 422 naming every failing field of a create, and stores nothing", async () => {
    const creds = await createAccount();
    const cases: [unknown, Record<string, string[]>][] = [
      [
        {},
        {
          platform: [`The selected platform is invalid. ${PLATFORMS}`],
          name: ["The name field is required."],
          base_url: ["The base_url field is required."],
          credentials: ["The credentials field is required."],
        },
      ],
      // Every missing field in one answer: the platform's credentials beside the connection's own fields.
      [
        { platform: "magento", credentials: {} },
        {
          name: ["The name field is required."],
          base_url: ["The base_url field is required."],
          "credentials.access_token": ["The credentials.access_token field is required."],
        },
      ],
      [
        { platform: "shopware", name: "", base_url: "shop.example.com", credentials: { client_id: "SWIA1" }, settings: { mode: "test" }, sources: [] },
        {
          name: ["The name field is required."],
          base_url: ["The base_url field must be a valid http(s) URL."],
          "credentials.client_secret": ["The credentials.client_secret field is required."],
          "settings.mode": ["The selected settings.mode is invalid. Allowed values: live, dry_run."],
          sources: ["The sources field must list at least one source; leave it out (or null) to serve every order of the account."],
        },
      ],
      [{ ...WOO_BODY, platform: "bigcommerce" }, { platform: [`The selected platform is invalid. ${PLATFORMS}`] }],
      [{ ...WOO_BODY, credentials: { consumer_key: "ck" } }, { "credentials.consumer_secret": ["The credentials.consumer_secret field is required."] }],
      [{ ...WOO_BODY, credentials: { ...WOO_KEYS, consumer_secret: "" } }, { "credentials.consumer_secret": ["The credentials.consumer_secret field must be at least 1 characters."] }],
      [{ ...WOO_BODY, credentials: { ...WOO_KEYS, consumer_key: 12 } }, { "credentials.consumer_key": ["The credentials.consumer_key field must be a string."] }],
      [
        { ...WOO_BODY, credentials: { ...WOO_KEYS, access_token: "x", api_key: "y" } },
        {
          "credentials.access_token": ["The credentials.access_token field is not one woocommerce takes; its credentials are consumer_key, consumer_secret."],
          "credentials.api_key": ["The credentials.api_key field is not one woocommerce takes; its credentials are consumer_key, consumer_secret."],
        },
      ],
      // Another platform's credentials: each missing one and each foreign one named.
      [
        { ...WOO_BODY, platform: "magento" },
        {
          "credentials.access_token": ["The credentials.access_token field is required."],
          "credentials.consumer_key": ["The credentials.consumer_key field is not one magento takes; its credentials are access_token."],
          "credentials.consumer_secret": ["The credentials.consumer_secret field is not one magento takes; its credentials are access_token."],
        },
      ],
      [{ ...WOO_BODY, credentials: "ck:cs" }, { credentials: ["The credentials field must be an object."] }],
      [{ ...WOO_BODY, settings: { mode: "test" } }, { "settings.mode": ["The selected settings.mode is invalid. Allowed values: live, dry_run."] }],
      [{ ...WOO_BODY, settings: { notify: false } }, { "settings.notify": ["The settings.notify field is not one woocommerce takes; its settings are mode, complete_status, tracking, stock_sync, price_sync, sync_guards."] }],
      [
        { ...WOO_BODY, platform: "prestashop", credentials: { webservice_key: "K" }, settings: { shipped_state_id: "4" } },
        { "settings.shipped_state_id": ["The settings.shipped_state_id field must be a number."] },
      ],
      [{ ...WOO_BODY, settings: [] }, { settings: ["The settings field must be an object."] }],
      [{ ...WOO_BODY, base_url: "shop.example.com" }, { base_url: ["The base_url field must be a valid http(s) URL."] }],
      [{ ...WOO_BODY, base_url: "ftp://shop.example.com" }, { base_url: ["The base_url field must be a valid http(s) URL."] }],
      [{ ...WOO_BODY, base_url: "https://user:pw@shop.example.com" }, { base_url: ["The base_url field must be a valid http(s) URL."] }],
      [{ ...WOO_BODY, base_url: "http://shop.example.com" }, { base_url: [`The base_url field ${HTTP_ONLY_LOOPBACK}`] }],
      // Where it points is told first (src/lib/outbound-address.ts): https would not make a private address reachable.
      [
        { ...WOO_BODY, base_url: "http://10.0.0.5:8080" },
        {
          base_url: [
            "The base_url field points to 10.0.0.5, a private network address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7, fec0::/10, or a name only a private network resolves), reached only where the operator set ALLOW_PRIVATE_NETWORKS.",
          ],
        },
      ],
      [{ ...WOO_BODY, base_url: "http://93.184.215.14:8080" }, { base_url: [`The base_url field ${HTTP_ONLY_LOOPBACK}`] }],
      [{ ...WOO_BODY, base_url: "http://localhost.example.com" }, { base_url: [`The base_url field ${HTTP_ONLY_LOOPBACK}`] }],
      [{ ...WOO_BODY, base_url: "https://shop.example.com/?lang=nl" }, { base_url: ["The base_url field must be the shop's address only, without a query (?) or a fragment (#)."] }],
      [{ ...WOO_BODY, base_url: "https://shop.example.com/#x" }, { base_url: ["The base_url field must be the shop's address only, without a query (?) or a fragment (#)."] }],
      [{ ...WOO_BODY, sources: [] }, { sources: ["The sources field must list at least one source; leave it out (or null) to serve every order of the account."] }],
      [{ ...WOO_BODY, sources: "shop" }, { sources: ["The sources field must be an array."] }],
      [{ ...WOO_BODY, sources: ["a", ""] }, { "sources.1": ["The sources.1 field is required."] }],
      [{ ...WOO_BODY, sources: ["Shop A", "shop a"] }, { "sources.1": ["The sources.1 field repeats sources.0."] }],
      [{ ...WOO_BODY, sources: ["a\u0000b"] }, { "sources.0": ["The sources.0 field must not contain control characters (it holds U+0000)."] }],
      [{ ...WOO_BODY, active: "maybe" }, { active: ["The active field must be true or false."] }],
    ];
    for (const [body, errors] of cases) {
      const res = await call("POST", "/api/v1/shop-connections", { creds, body });
      expect({ body, status: res.status, json: res.json }).toEqual({ body, status: 422, json: { message: "Errors", errors } });
    }
    expect(await storedConnections(creds.accountId)).toEqual([]);
  });

  it("takes plain http to every loopback host", async () => {
    const creds = await createAccount();
    for (const base_url of ["http://localhost:8787", "http://LOCALHOST", "http://127.0.0.1:9000/shop", "http://127.1.2.3", "http://[::1]:8080"]) {
      const res = await call("POST", "/api/v1/shop-connections", { creds, body: { ...WOO_BODY, base_url } });
      expect({ base_url, status: res.status }).toEqual({ base_url, status: 201 });
    }
  });

  it("holds its limits at the maximum and refuses one past: name 100, base_url 2,048, 20 sources of 255", async () => {
    const creds = await createAccount();
    const at = {
      ...WOO_BODY,
      name: "n".repeat(100),
      base_url: `https://shop.example.com/${"p".repeat(2048 - "https://shop.example.com/".length)}`,
      sources: Array.from({ length: 20 }, (_, i) => `${i}`.padEnd(255, "s")),
    };
    const ok = await call("POST", "/api/v1/shop-connections", { creds, body: at });
    expect(ok.status, ok.text).toBe(201);
    expect([ok.json.name, ok.json.base_url, ok.json.sources]).toEqual([at.name, at.base_url, at.sources]);

    const past = { ...at, name: `${at.name}n`, base_url: `${at.base_url}p`, sources: [...at.sources, "one more"] };
    const refused = await call("POST", "/api/v1/shop-connections", { creds, body: past });
    expect([refused.status, refused.json]).toEqual([
      422,
      {
        message: "Errors",
        errors: {
          name: ["The name field must not be greater than 100 characters."],
          base_url: ["The base_url field must not be greater than 2048 characters."],
          sources: ["The sources field must not have more than 20 items."],
        },
      },
    ]);
    const longSource = await call("POST", "/api/v1/shop-connections", { creds, body: { ...at, sources: ["s".repeat(256)] } });
    expect([longSource.status, longSource.json]).toEqual([422, { message: "Errors", errors: { "sources.0": ["The sources.0 field must not be greater than 255 characters."] } }]);
    // A PATCH holds the same limits.
    const patched = await call("PATCH", `/api/v1/shop-connections/${ok.json.id}`, { creds, body: { name: past.name, sources: past.sources } });
    expect([patched.status, patched.json.errors]).toEqual([
      422,
      { name: ["The name field must not be greater than 100 characters."], sources: ["The sources field must not have more than 20 items."] },
    ]);
    expect((await storedConnections(creds.accountId)).length).toBe(1);
  });

  it("holds the platforms' own limits at the maximum and one past: credentials of 500 characters, complete_status 50, shipped_state_id and hold_state_id 1,000,000", async () => {
    const creds = await createAccount();
    const long = { consumer_key: "k".repeat(500), consumer_secret: "s".repeat(500) };
    const atWoo = await call("POST", "/api/v1/shop-connections", { creds, body: { ...WOO_BODY, credentials: long, settings: { complete_status: "c".repeat(50) } } });
    expect([atWoo.status, atWoo.json.credentials, atWoo.json.settings.complete_status]).toEqual([201, { consumer_key: "…kkkk", consumer_secret: "…ssss" }, "c".repeat(50)]);
    const pastWoo = await call("POST", "/api/v1/shop-connections", {
      creds,
      body: { ...WOO_BODY, credentials: { ...long, consumer_secret: "s".repeat(501) }, settings: { complete_status: "c".repeat(51) } },
    });
    expect([pastWoo.status, pastWoo.json]).toEqual([
      422,
      {
        message: "Errors",
        errors: {
          "credentials.consumer_secret": ["The credentials.consumer_secret field must not be greater than 500 characters."],
          "settings.complete_status": ["The settings.complete_status field must not be greater than 50 characters."],
        },
      },
    ]);
    const ps = { ...WOO_BODY, platform: "prestashop", credentials: { webservice_key: "PSKEY" } };
    const atPs = await call("POST", "/api/v1/shop-connections", { creds, body: { ...ps, settings: { shipped_state_id: 1_000_000 } } });
    expect([atPs.status, atPs.json.settings]).toEqual([201, { mode: "live", shipped_state_id: 1_000_000, hold_state_id: null }]);
    const atHold = await call("POST", "/api/v1/shop-connections", { creds, body: { ...ps, settings: { hold_state_id: 1_000_000 } } });
    expect([atHold.status, atHold.json.settings]).toEqual([201, { mode: "live", shipped_state_id: 4, hold_state_id: 1_000_000 }]);
    for (const [value, message] of [
      [1_000_001, "The settings.shipped_state_id field must not be greater than 1000000."],
      [0, "The settings.shipped_state_id field must be at least 1."],
      [4.5, "The settings.shipped_state_id field must be an integer."],
    ] as const) {
      const res = await call("POST", "/api/v1/shop-connections", { creds, body: { ...ps, settings: { shipped_state_id: value } } });
      expect({ value, status: res.status, json: res.json }).toEqual({ value, status: 422, json: { message: "Errors", errors: { "settings.shipped_state_id": [message] } } });
    }
    // The on-hold state: an order state id or null; never the shipped state (an order on hold is not shipped).
    for (const [settings, message] of [
      [{ hold_state_id: 1_000_001 }, "The settings.hold_state_id field must not be greater than 1000000."],
      [{ hold_state_id: 0 }, "The settings.hold_state_id field must be at least 1."],
      [{ hold_state_id: "20" }, "The settings.hold_state_id field must be a number."],
      [{ hold_state_id: 4 }, "The settings.hold_state_id field must be another order state than settings.shipped_state_id: an order on hold is not shipped."],
      [{ shipped_state_id: 20, hold_state_id: 20 }, "The settings.hold_state_id field must be another order state than settings.shipped_state_id: an order on hold is not shipped."],
    ] as const) {
      const res = await call("POST", "/api/v1/shop-connections", { creds, body: { ...ps, settings } });
      expect({ settings, status: res.status, json: res.json }).toEqual({ settings, status: 422, json: { message: "Errors", errors: { "settings.hold_state_id": [message] } } });
    }
    // null is taken: no hold, as by default.
    const noHold = await call("POST", "/api/v1/shop-connections", { creds, body: { ...ps, settings: { hold_state_id: null } } });
    expect([noHold.status, noHold.json.settings.hold_state_id]).toEqual([201, null]);
    expect((await storedConnections(creds.accountId)).length).toBe(4);
  });

  it("refuses a PATCH that changes the platform, or sends credentials or settings the platform does not take, and changes nothing", async () => {
    const creds = await createAccount();
    const created = await createConnection(creds);
    const path = `/api/v1/shop-connections/${created.id}`;
    const before = await storedConnections(creds.accountId);
    const cases: [unknown, Record<string, string[]>][] = [
      [{ platform: "magento" }, { platform: ["The platform field cannot be changed (the connection is woocommerce); delete the connection and create another."] }],
      [{ credentials: { consumer_key: "only-one" } }, { "credentials.consumer_secret": ["The credentials.consumer_secret field is required."] }],
      [{ credentials: { access_token: "magento-token" } }, {
        "credentials.consumer_key": ["The credentials.consumer_key field is required."],
        "credentials.consumer_secret": ["The credentials.consumer_secret field is required."],
        "credentials.access_token": ["The credentials.access_token field is not one woocommerce takes; its credentials are consumer_key, consumer_secret."],
      }],
      [{ credentials: null }, { credentials: ["The credentials field is required."] }],
      [{ settings: { mode: "off", tracking: "pigeon" } }, {
        "settings.mode": ["The selected settings.mode is invalid. Allowed values: live, dry_run."],
        "settings.tracking": ["The selected settings.tracking is invalid. Allowed values: auto, extension, note."],
      }],
      [{ base_url: "http://shop.example.com", name: "" }, { base_url: [`The base_url field ${HTTP_ONLY_LOOPBACK}`] }],
      [{ sources: [] }, { sources: ["The sources field must list at least one source; leave it out (or null) to serve every order of the account."] }],
      [{ active: "perhaps", platform: "prestashop", settings: { mode: "live", extra: 1 } }, {
        active: ["The active field must be true or false."],
      }],
    ];
    for (const [body, errors] of cases) {
      const res = await call("PATCH", path, { creds, body });
      expect({ body, status: res.status, json: res.json }).toEqual({ body, status: 422, json: { message: "Errors", errors } });
    }
    expect(await storedConnections(creds.accountId)).toEqual(before);
  });

  it("answers 503 in our shape when the Worker has no SECRETS_KEY, storing nothing; reads go on", async () => {
    const creds = await createAccount();
    const created = await createConnection(creds);
    const app = createApp();
    const keyless = { ...env, SECRETS_KEY: undefined } as unknown as Bindings;
    const send = async (method: string, path: string, body?: unknown) => {
      const ctx = createExecutionContext();
      const res = await app.fetch(
        new Request(`${BASE}${path}`, { method, headers: { ...authHeaders(creds), "content-type": "application/json" }, body: body === undefined ? undefined : JSON.stringify(body) }),
        keyless,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      return { status: res.status, json: await res.json() };
    };
    const unavailable = { message: "Service Unavailable", error: 'SECRETS_KEY is not set: this Worker cannot keep credentials (docs/operations.md, "Secrets")' };
    expect(await send("POST", "/api/v1/shop-connections", WOO_BODY)).toEqual({ status: 503, json: unavailable });
    expect(await send("PATCH", `/api/v1/shop-connections/${created.id}`, { credentials: WOO_KEYS })).toEqual({ status: 503, json: unavailable });
    expect(await send("POST", `/api/v1/shop-connections/${created.id}/test`)).toEqual({ status: 503, json: unavailable });
    expect(await send("GET", `/api/v1/shop-connections/${created.id}`)).toEqual({ status: 200, json: created });
    expect((await send("PATCH", `/api/v1/shop-connections/${created.id}`, { name: "Renamed" })).status).toBe(200);
    expect((await storedConnections(creds.accountId)).length).toBe(1);
  });
});
