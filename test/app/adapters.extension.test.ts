// A channel and a shop platform each added in one file (test/forwarding/test-only-channel.ts,
// test/shops/test-only-platform.ts) and registered here, with nothing else changed: the API takes
// their settings (and names a bad one), the console's forms show their fields, a dispatch is sent
// through the channel and a write-back written through the platform (docs/adapters.md).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerChannel } from "../../src/forwarding/channels";
import { registerPlatform } from "../../src/shops/platforms/index";
import { createAccount, createOrder, rows, unique } from "../helpers/factories";
import { received, remoteUrl } from "../helpers/fake-remote";
import { call } from "../helpers/http";
import { getPage, signIn } from "../helpers/console-http";
import { answered, ship, writeBacksSettled } from "../helpers/shops";
import { awaitingPickup, orderSettled, supplierChain } from "../helpers/suppliers";
import { TEST_DROP, testDropChannel } from "../forwarding/test-only-channel";
import { TEST_SHOP, testShopPlatform } from "../shops/test-only-platform";

// Registered for this file only: the test files share one Worker (vitest.config.ts, isolate: false),
// and the others' 422s list exactly the built-in names.
const unregister: (() => void)[] = [];
beforeAll(() => {
  unregister.push(registerChannel(testDropChannel), registerPlatform(testShopPlatform));
});
afterAll(() => {
  for (const undo of unregister) undo();
});

describe("a channel added in one file", () => {
  it("the API takes its settings and names a missing or bad one", async () => {
    const creds = await createAccount();
    const missing = await call("POST", "/api/v1/suppliers", { creds, body: { name: unique("Drop"), channel: TEST_DROP } });
    expect(missing.status).toBe(422);
    expect(missing.json.errors).toEqual({ webhook_url: ["The webhook_url field is required when channel is test_drop."] });

    const bad = await call("POST", "/api/v1/suppliers", { creds, body: { name: unique("Drop"), channel: TEST_DROP, webhook_url: remoteUrl("status-500") } });
    expect(bad.status).toBe(422);
    expect(bad.json.errors).toEqual({ webhook_url: ["The webhook_url field must be a drop box address (its path starts with /ok/)."] });

    const unknown = await call("POST", "/api/v1/suppliers", { creds, body: { name: unique("Drop"), channel: "test_dropp" } });
    expect(unknown.status).toBe(422);
    expect(unknown.json.errors).toEqual({ channel: ["The selected channel is invalid. Allowed values: webhook, pull, email, manual, file, test_drop."] });
    // Nothing was stored by the refused ones.
    expect((await call("GET", "/api/v1/suppliers", { creds })).json.data).toEqual([]);

    const url = remoteUrl("ok");
    const created = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Drop box BV", channel: TEST_DROP, webhook_url: url } });
    expect(created.status, created.text).toBe(201);
    expect(created.json).toMatchObject({ channel: "test_drop", webhook_url: url });
  });

  it("the console's supplier form offers it with its field, and a dispatch is sent through it", async () => {
    const creds = await createAccount();
    const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
    const form = await getPage("/console/suppliers/new", jar);
    expect(form.status).toBe(200);
    expect(form.html).toContain('value="test_drop"');
    expect(form.html).toContain("<strong>Test drop box</strong>");
    // The drop box URL is the supplier's webhook_url field, shown for both channels that use it.
    expect(form.html).toMatch(/<div class="channel-field" data-channel="webhook test_drop">/);
    const css = await getPage("/console/suppliers/channel-fields.css", jar);
    expect(css.html).toContain(`.supplier-form:has(input[name="channel"][value="test_drop"]:checked) .channel-field:not([data-channel~="test_drop"])`);

    const url = remoteUrl("ok");
    const [{ supplier }] = await supplierChain(creds, [{ channel: TEST_DROP, webhook_url: url }]);
    const { reference } = await createOrder(creds);
    const order = await orderSettled(creds, reference, ["completed"]);
    expect(order.order_lines[0].logs.at(-1).message).toBe(`Dropped in supplier ${supplier.name}'s drop box`);
    const got = await received(url);
    expect(got).toHaveLength(1);
    expect(got[0].headers["x-test-drop"]).toBe("order");
    expect(JSON.parse(got[0].body)).toMatchObject({ type: "order.dispatch", order: { reference } });

    // The order page's attempt log says how it went out, in the channel's words.
    const page = await getPage(`/console/orders/${reference}`, jar);
    expect(page.html).toContain(`1 line into the drop box to ${url}`);
  });
});

describe("a shop platform added in one file", () => {
  it("the API takes its credentials and settings and names a bad one", async () => {
    const creds = await createAccount();
    const base = { platform: TEST_SHOP, name: "Test shop", base_url: remoteUrl("ok") };
    const bad = await call("POST", "/api/v1/shop-connections", { creds, body: { ...base, credentials: { api_token: "t0ken" }, settings: { note_prefix: "x".repeat(21) } } });
    expect(bad.status).toBe(422);
    expect(bad.json.errors).toEqual({ "settings.note_prefix": ["The settings.note_prefix field must not be greater than 20 characters."] });
    const wrongKey = await call("POST", "/api/v1/shop-connections", { creds, body: { ...base, credentials: { consumer_key: "ck" } } });
    expect(wrongKey.status).toBe(422);
    expect(wrongKey.json.errors).toEqual({
      "credentials.api_token": ["The credentials.api_token field is required."],
      "credentials.consumer_key": ["The credentials.consumer_key field is not one test_shop takes; its credentials are api_token."],
    });
    expect((await call("GET", "/api/v1/shop-connections", { creds })).json.data).toEqual([]);

    const atMax = await call("POST", "/api/v1/shop-connections", { creds, body: { ...base, credentials: { api_token: "t0ken" }, settings: { note_prefix: "x".repeat(20) } } });
    expect(atMax.status, atMax.text).toBe(201);
    expect(atMax.json).toMatchObject({ platform: "test_shop", settings: { mode: "live", note_prefix: "x".repeat(20) } });
  });

  it("the console's form shows its fields, and a shipment is written back through it", async () => {
    const creds = await createAccount();
    const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
    const form = await getPage(`/console/shop-connections/new?platform=${TEST_SHOP}`, jar);
    expect(form.status).toBe(200);
    expect(form.html).toContain("Test shop credentials");
    expect(form.html).toMatch(/<label for="field-credentials-api_token">API token<\/label>\s*<input id="field-credentials-api_token" name="credentials.api_token" type="password"/);
    expect(form.html).toContain("Test shop: Settings &gt; API, a token that may write orders.");
    expect(form.html).toContain('<label for="field-settings-note_prefix">Note prefix</label>');

    const shopUrl = remoteUrl("ok");
    const conn = await call("POST", "/api/v1/shop-connections", { creds, body: { platform: TEST_SHOP, name: "Test shop", base_url: shopUrl, credentials: { api_token: "t0ken" }, settings: { note_prefix: "Ours" } } });
    expect(conn.status, conn.text).toBe(201);
    const [{ key }] = await supplierChain(creds, [{ channel: "pull" }]);
    const { reference } = await createOrder(creds, { external_id: "A-77" });
    await awaitingPickup(key!, reference);
    const line = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines[0].id as number;
    const quantity = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines[0].quantity as number;
    await answered(key!, [ship(line, quantity, "TRACK1")]);
    const orderId = (await rows<{ id: number }>("SELECT id FROM orders WHERE reference = ?", reference))[0].id;
    expect((await writeBacksSettled(orderId, 2)).map((w) => [w.kind, w.status])).toEqual([
      ["shipment", "done"],
      ["complete", "done"],
    ]);
    const path = new URL(shopUrl).pathname;
    const got = (await received(shopUrl)).map((r) => `${r.method} ${r.path.slice(path.length)} ${r.headers.authorization} ${r.body}`);
    expect(got).toEqual([
      "GET /orders/A-77 Bearer t0ken ",
      `POST /orders/A-77/shipments Bearer t0ken ${JSON.stringify({ note: `Ours: ${reference}`, trackings: ["TRACK1"] })}`,
      "GET /orders/A-77 Bearer t0ken ",
      "POST /orders/A-77/complete Bearer t0ken {}",
    ]);
  });
});
