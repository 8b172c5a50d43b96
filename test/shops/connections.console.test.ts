// The console's shop-connection pages over HTTP (src/shops/connections.pages.tsx): credentials go
// in and never come out, in no page (a form sent back with an error included), no API answer and
// no log line; the form's errors beside their fields; an edit with blank credentials keeps them.
import { inject, describe, expect, it, vi } from "vitest";
import { createAccount } from "../helpers/factories";
import { send, signIn, type Jar } from "../helpers/console-http";
import { BASE, call } from "../helpers/http";
import { storedConnections } from "./support";

const SECRETS = { consumer_key: "ck_console_9a8b7c6d5e4f3a2b1c0d9e8f7a6bQR12", consumer_secret: "cs_console_1a2b3c4d5e6f7a8b9c0d1e2f3a4bST34" };

const csrfOf = (html: string) => /name="_csrf" value="([0-9a-f]{64})"/.exec(html)![1];
const post = (path: string, jar: Jar, fields: Record<string, string>) =>
  send(path, { method: "POST", jar, body: new URLSearchParams(fields), headers: { origin: BASE, "content-type": "application/x-www-form-urlencoded" } });
const page = async (path: string, jar: Jar) => {
  const res = await send(path, { jar });
  return { status: res.status, html: await res.text() };
};
const expectNoSecret = (text: string) => {
  for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
};

describe("the shop-connection pages", () => {
  it("create, show, edit and test a connection without the credentials ever in a page, an answer or a log", async () => {
    const logged: string[] = [];
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" "))),
    );
    try {
      const creds = await createAccount();
      const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
      const form = await page("/console/shop-connections/new?platform=woocommerce", jar);
      expect(form.status).toBe(200);
      expect(form.html).toContain('name="credentials.consumer_key"');
      expect(form.html).not.toContain('name="credentials.access_token"');
      const csrf = csrfOf(form.html);
      const fields = {
        _csrf: csrf,
        platform: "woocommerce",
        name: "Console shop",
        base_url: "http://shop.example.com",
        "credentials.consumer_key": SECRETS.consumer_key,
        "credentials.consumer_secret": SECRETS.consumer_secret,
        "settings.mode": "dry_run",
        "settings.complete_status": "completed",
        "settings.tracking": "auto",
        sources: "",
      };

      // Refused beside the field; the secrets typed in are not sent back.
      const refused = await post("/console/shop-connections/new?platform=woocommerce", jar, fields);
      const refusedHtml = await refused.text();
      expect(refused.status).toBe(422);
      expect(refusedHtml).toContain(
        '<small id="field-base_url-error" class="field-error">The Shop address field must be an https URL; plain http is taken only for a shop on this machine (localhost, 127.0.0.0/8 or [::1]), as in local development.</small>',
      );
      expectNoSecret(refusedHtml);
      expect(await storedConnections(creds.accountId)).toEqual([]);

      const closed = new URL(inject("closedPortUrl"));
      const created = await post("/console/shop-connections/new?platform=woocommerce", jar, { ...fields, base_url: closed.origin, sources: "Shop A\n\nShop B\n" });
      expect(created.status).toBe(303);
      const location = created.headers.get("location")!;
      expect(location).toMatch(/^\/console\/shop-connections\/\d+$/);
      const id = Number(location.split("/").pop());
      const api = await call("GET", `/api/v1/shop-connections/${id}`, { creds });
      expect(api.json).toMatchObject({
        platform: "woocommerce",
        name: "Console shop",
        base_url: closed.origin,
        credentials: { consumer_key: "…QR12", consumer_secret: "…ST34" },
        sources: ["Shop A", "Shop B"],
        settings: { mode: "dry_run", complete_status: "completed", tracking: "auto" },
        active: true,
      });

      const shown = await page(location, jar);
      expect(shown.html).toContain("Consumer key …QR12 · Consumer secret …ST34");
      expectNoSecret(shown.html);
      const list = await page("/console/shop-connections", jar);
      expect(list.html).toContain(`<a href="/console/shop-connections/${id}">Console shop</a>`);
      expectNoSecret(list.html);

      // Saved with the credential fields left blank: the stored credentials stay.
      const sealed = (await storedConnections(creds.accountId))[0].credentials_sealed;
      const saved = await post(location, jar, { _csrf: csrf, name: "Renamed", base_url: closed.origin, "settings.mode": "live", "settings.complete_status": "completed", "settings.tracking": "note", sources: "" });
      expect([saved.status, saved.headers.get("location")]).toEqual([303, location]);
      expect((await storedConnections(creds.accountId))[0].credentials_sealed).toBe(sealed);
      expect((await call("GET", `/api/v1/shop-connections/${id}`, { creds })).json).toMatchObject({ name: "Renamed", sources: null, settings: { mode: "live", tracking: "note" } });

      // One credential typed in: a new set must be whole.
      const half = await post(location, jar, { _csrf: csrf, name: "Renamed", base_url: closed.origin, "credentials.consumer_key": SECRETS.consumer_key });
      const halfHtml = await half.text();
      expect(half.status).toBe(422);
      expect(halfHtml).toContain('<small id="field-credentials-consumer_secret-error" class="field-error">The Consumer secret field is required.</small>');
      expectNoSecret(halfHtml);

      // The test's checks shown after the redirect.
      const tested = await post(`${location}/test`, jar, { _csrf: csrf });
      expect([tested.status, tested.headers.get("location")]).toEqual([303, location]);
      const result = await page(location, jar);
      expect(result.html).toContain(`<strong>connection</strong>: The connection to ${closed.host} was refused: nothing listens on port ${closed.port} there.`);
      expectNoSecret(result.html);
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
    expectNoSecret(logged.join("\n"));
  });

  it("PrestaShop's on-hold state: set in the form, refused beside its field when bad, and cleared back to none with a blank field", async () => {
    const creds = await createAccount();
    const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
    const form = await page("/console/shop-connections/new?platform=prestashop", jar);
    expect(form.html).toContain('name="settings.hold_state_id"');
    const csrf = csrfOf(form.html);
    const fields = { _csrf: csrf, platform: "prestashop", name: "PS", base_url: "http://localhost:8080", "credentials.webservice_key": "K".repeat(32), "settings.mode": "live", "settings.shipped_state_id": "4", sources: "" };
    for (const [value, message] of [
      ["abc", "The Order state while a line waits field must be a number."],
      ["4", "The Order state while a line waits field must be another order state than settings.shipped_state_id: an order on hold is not shipped."],
    ]) {
      const refused = await post("/console/shop-connections/new?platform=prestashop", jar, { ...fields, "settings.hold_state_id": value });
      expect(refused.status).toBe(422);
      expect(await refused.text()).toContain(`<small id="field-settings-hold_state_id-error" class="field-error">${message}</small>`);
    }
    expect(await storedConnections(creds.accountId)).toEqual([]);
    const created = await post("/console/shop-connections/new?platform=prestashop", jar, { ...fields, "settings.hold_state_id": "20" });
    expect(created.status).toBe(303);
    const location = created.headers.get("location")!;
    const id = Number(location.split("/").pop());
    expect((await call("GET", `/api/v1/shop-connections/${id}`, { creds })).json.settings).toEqual({ mode: "live", shipped_state_id: 4, hold_state_id: 20 });
    expect((await page(location, jar)).html).toMatch(/name="settings\.hold_state_id"[^>]*value="20"|value="20"[^>]*name="settings\.hold_state_id"/);
    const cleared = await post(location, jar, { ...fields, "credentials.webservice_key": "", "settings.hold_state_id": "" });
    expect(cleared.status).toBe(303);
    expect((await call("GET", `/api/v1/shop-connections/${id}`, { creds })).json.settings).toEqual({ mode: "live", shipped_state_id: 4, hold_state_id: null });
  });
});
