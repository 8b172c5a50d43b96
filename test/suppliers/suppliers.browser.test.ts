// The shop's suppliers in a real browser, each action checked afterwards through the API: the list,
// a new supplier with its channel (refused beside the field, what was typed kept), its settings,
// the signing secret's rotation and the supplier keys, each secret shown once; another account's
// supplier is the same 404 page as an unknown one; a forged CSRF token changes nothing.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, columnTexts, createShop, expectAccessible, newPage, screenshot, signInShop, signInSupplier, type Shop } from "../browser/console";

let shop: Shop;
let page: Page;

beforeAll(async () => {
  shop = await createShop();
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(closeBrowser);

const flash = () => page.locator(".flash").innerText();
const idFromUrl = () => Number(new URL(page.url()).pathname.split("/").pop());

describe("the suppliers pages", () => {
  it("say what to do when there are none, then create a supplier, refusing a missing webhook URL beside the field", async () => {
    await page.goto("/console/suppliers");
    expect(await page.getByRole("heading", { name: "No suppliers yet" }).isVisible()).toBe(true);
    await expectAccessible(page);
    await page.getByRole("button", { name: "New supplier" }).click();
    await page.getByLabel("Name", { exact: true }).fill("Lampenlab");
    await page.getByLabel("Code").fill("LL");
    await page.getByRole("radio", { name: /^Webhook/ }).check();
    // Only the webhook's own field is shown for that channel.
    expect(await page.getByLabel("E-mail address").isVisible()).toBe(false);
    await page.getByRole("button", { name: "Create supplier" }).click();
    expect(await page.locator("#field-webhook_url-error").innerText()).toBe("The Webhook URL field is required when channel is webhook.");
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Lampenlab");
    expect(await page.getByRole("radio", { name: /^Webhook/ }).isChecked()).toBe(true);
    await expectAccessible(page);
    expect((await api(shop, "GET", "/api/v1/suppliers")).json.data).toEqual([]);

    await page.getByLabel("Webhook URL").fill("ftp://lampenlab.example/orders");
    await page.getByRole("button", { name: "Create supplier" }).click();
    expect(await page.locator("#field-webhook_url-error").innerText()).toBe("The Webhook URL field must be a valid http(s) URL.");
    await page.getByLabel("Webhook URL").fill("https://lampenlab.example/orders");
    await page.getByRole("button", { name: "Create supplier" }).click();
    await page.waitForURL(/\/console\/suppliers\/\d+$/);
    expect(await flash()).toBe("Supplier Lampenlab created.");
    expect(await page.getByRole("textbox", { name: "Signing secret of Lampenlab" }).inputValue()).toMatch(/^whsec_/);
    const created = await api(shop, "GET", `/api/v1/suppliers/${idFromUrl()}`);
    expect(created.json).toMatchObject({ name: "Lampenlab", code: "LL", channel: "webhook", webhook_url: "https://lampenlab.example/orders", active: true, priority: 100 });
    await screenshot(page, "supplier");
    await expectAccessible(page);
  });

  it("saves settings (another channel), refuses a taken name beside the field, and lists the suppliers", async () => {
    await api(shop, "POST", "/api/v1/suppliers", { name: "Tuinhout", channel: "manual", priority: 5 });
    const lampenlab = (await api(shop, "GET", "/api/v1/suppliers")).json.data.find((s: { name: string }) => s.name === "Lampenlab");
    await page.goto(`/console/suppliers/${lampenlab.id}`);
    await page.getByLabel("Name", { exact: true }).fill("Tuinhout");
    await page.getByRole("button", { name: "Save supplier" }).click();
    expect(await page.locator("#field-name-error").innerText()).toBe("The Name has already been taken.");
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Tuinhout");

    await page.getByLabel("Name", { exact: true }).fill("Lampenlab BV");
    await page.getByRole("radio", { name: /^E-mail/ }).check();
    await page.getByLabel("E-mail address").fill("orders@lampenlab.example");
    await page.getByLabel("Priority").fill("20");
    await page.getByRole("checkbox", { name: /^Active/ }).uncheck();
    await page.getByRole("button", { name: "Save supplier" }).click();
    await page.waitForURL(`**/console/suppliers/${lampenlab.id}`);
    expect(await flash()).toBe("Supplier Lampenlab BV saved.");
    expect((await api(shop, "GET", `/api/v1/suppliers/${lampenlab.id}`)).json).toMatchObject({
      name: "Lampenlab BV",
      channel: "email",
      email: "orders@lampenlab.example",
      priority: 20,
      active: false,
    });

    await page.goto("/console/suppliers");
    expect(await columnTexts(page, "Name")).toEqual(["Tuinhout", "Lampenlab BV"]);
    expect(await columnTexts(page, "State")).toEqual(["Active", "Inactive"]);
    await screenshot(page, "suppliers");
    await expectAccessible(page);
  });

  it("rotates the signing secret (shown once), keeping or expiring the previous one, as the API shows", async () => {
    const supplier = (await api(shop, "POST", "/api/v1/suppliers", { name: "Rotated", channel: "manual" })).json;
    await page.goto(`/console/suppliers/${supplier.id}`);
    await page.getByRole("button", { name: "Rotate signing secret" }).click();
    await page.waitForURL(`**/console/suppliers/${supplier.id}`);
    const secret = await page.getByRole("textbox", { name: "New signing secret of Rotated" }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    expect(secret).not.toBe(supplier.webhook_secret);
    expect((await api(shop, "GET", `/api/v1/suppliers/${supplier.id}`)).json.previous_secret_valid).toBe(true);
    await page.reload();
    expect(await page.locator("#secret-once-value").count()).toBe(0);

    await page.getByRole("checkbox", { name: "Expire the previous secret now" }).check();
    await page.getByRole("button", { name: "Rotate signing secret" }).click();
    await page.waitForURL(`**/console/suppliers/${supplier.id}`);
    expect(await page.locator("article.secret-once p").innerText()).toContain("The previous secret no longer works.");
    expect((await api(shop, "GET", `/api/v1/suppliers/${supplier.id}`)).json.previous_secret_valid).toBe(false);
  });

  it("issues a supplier key (shown once, it signs in to the portal) and revokes it, ending the portal session", async () => {
    const supplier = (await api(shop, "POST", "/api/v1/suppliers", { name: "Keyed", channel: "pull" })).json;
    await page.goto(`/console/suppliers/${supplier.id}`);
    expect(await page.getByText("No keys yet.").isVisible()).toBe(true);
    await page.getByLabel("Key name").fill("x".repeat(256));
    await page.getByRole("button", { name: "Issue a supplier key" }).click();
    expect(await page.locator("#field-key_name-error").innerText()).toBe("The Key name field must not be greater than 255 characters.");
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("Keyed");
    await page.getByLabel("Key name").fill("portal");
    await page.getByRole("button", { name: "Issue a supplier key" }).click();
    await page.waitForURL(`**/console/suppliers/${supplier.id}`);
    const key = await page.getByRole("textbox", { name: /^New supplier key osk_/ }).inputValue();
    const keys = (await api(shop, "GET", `/api/v1/suppliers/${supplier.id}/keys`)).json.data;
    expect(keys).toEqual([expect.objectContaining({ name: "portal", prefix: key.slice(0, 10), revoked_at: null })]);

    const portal = await newPage();
    await signInSupplier(portal, key);
    expect(new URL(portal.url()).pathname).toBe("/supplier");
    await page.reload();
    await page.getByRole("button", { name: `Revoke key ${key.slice(0, 10)}` }).click();
    await page.waitForURL(`**/console/suppliers/${supplier.id}`);
    expect(await flash()).toBe("Supplier key revoked: it no longer works, and its portal sessions have ended.");
    expect((await api(shop, "GET", `/api/v1/suppliers/${supplier.id}/keys`)).json.data[0].revoked_at).not.toBeNull();
    await portal.reload();
    expect(new URL(portal.url()).pathname).toBe("/supplier/sign-in");
  });

  it("shows another account's supplier as the same 404 page as an unknown one, and refuses a forged CSRF token", async () => {
    const other = await createShop();
    const theirs = (await api(other, "POST", "/api/v1/suppliers", { name: "Theirs", channel: "manual" })).json;
    const res = await page.goto(`/console/suppliers/${theirs.id}`);
    const text = await page.locator("main").innerText();
    const unknown = await page.goto("/console/suppliers/999999999");
    expect([res!.status(), unknown!.status()]).toEqual([404, 404]);
    expect(text).toBe(await page.locator("main").innerText());
    const post = await page.context().request.post(`/console/suppliers/${theirs.id}/rotate-secret`, {
      form: { _csrf: await page.locator('header input[name="_csrf"]').inputValue() },
      headers: { origin: new URL(page.url()).origin },
      maxRedirects: 0,
    });
    expect(post.status()).toBe(404);
    expect((await api(other, "GET", `/api/v1/suppliers/${theirs.id}`)).json.previous_secret_valid).toBe(false);

    await page.goto("/console/suppliers/new");
    await page.getByLabel("Name", { exact: true }).fill("Forged");
    await page.locator('form.supplier-form input[name="_csrf"]').evaluate((input) => ((input as HTMLInputElement).value = "forged"));
    await page.getByRole("button", { name: "Create supplier" }).click();
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Request refused");
    expect((await api(shop, "GET", "/api/v1/suppliers")).json.data.map((s: { name: string }) => s.name)).not.toContain("Forged");
  });

  it("fits a 360 px screen", async () => {
    const phone = await newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await signInShop(phone, shop);
    const id = (await api(shop, "GET", "/api/v1/suppliers")).json.data[0].id;
    for (const path of ["/console/suppliers", "/console/suppliers/new", `/console/suppliers/${id}`]) {
      await phone.goto(path);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(360);
    }
    await expectAccessible(phone);
  });
});
