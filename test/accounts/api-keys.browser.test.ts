// The shop's API keys in a real browser: the list (prefix, name, last used, expiry), a new key shown
// once and working with the API, revoking one (checked through the API), a key revoking itself
// (its session ends at once), the last live key refused, bad input beside the field.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, columnTexts, createShop, expectAccessible, newPage, screenshot, signInShop, type Shop } from "../browser/console";

let shop: Shop;

beforeAll(async () => {
  shop = await createShop();
});
afterAll(closeBrowser);

describe("the API keys page", () => {
  it("creates a key shown once that works with the API, lists it, and revokes it", async () => {
    const page = await newPage();
    await signInShop(page, shop);
    await page.getByRole("link", { name: "API keys" }).click();
    await page.waitForURL("**/console/api-keys");
    expect(await columnTexts(page, "Prefix")).toEqual([`${shop.apiKey.slice(0, 10)}…`]);
    expect(await columnTexts(page, "State")).toEqual(["ActiveThis session"]);

    await page.getByLabel("Name", { exact: true }).fill("magento");
    await page.getByLabel("Expires on").fill("2031-01-31");
    await page.getByRole("button", { name: "Create key" }).click();
    await page.waitForURL("**/console/api-keys");
    const secret = await page.getByRole("textbox", { name: /^New API key oik_/ }).inputValue();
    expect(secret).toMatch(/^oik_/);
    expect(await page.getByRole("status").innerText()).toMatch(/^API key oik_[\w-]+… created \(magento\)\.$/);
    const listed = await api(shop, "GET", "/api/v1/api-keys");
    expect(listed.json.data[0]).toMatchObject({ name: "magento", prefix: secret.slice(0, 10), expires_at: "2031-01-31T00:00:00.000000Z", state: "active" });
    expect((await api({ ...shop, apiKey: secret }, "GET", "/api/v1")).status).toBe(200);
    await screenshot(page, "api-keys");
    await expectAccessible(page);

    // Shown once: a reload no longer has it.
    await page.reload();
    expect(await page.locator("#secret-once-value").count()).toBe(0);
    expect(await columnTexts(page, "Name")).toEqual(["magento", "console test"]);
    expect((await columnTexts(page, "Last used"))[0]).toMatch(/\d/);

    await page.getByRole("button", { name: `Revoke key ${secret.slice(0, 10)}` }).click();
    await page.waitForURL("**/console/api-keys");
    expect(await page.getByRole("status").innerText()).toBe("API key revoked: it no longer works, and its console sessions have ended.");
    expect((await api({ ...shop, apiKey: secret }, "GET", "/api/v1")).json.error).toBe("The api-key header holds a revoked key.");
    expect((await columnTexts(page, "State"))[0]).toBe("Revoked");
  });

  it("refuses bad input beside the field, keeping what was typed", async () => {
    const page = await newPage();
    await signInShop(page, shop);
    await page.goto("/console/api-keys");
    await page.getByLabel("Name", { exact: true }).fill("x".repeat(256));
    await page.getByRole("button", { name: "Create key" }).click();
    expect(await page.locator("#field-name-error").innerText()).toBe("The Name field must not be greater than 255 characters.");
    expect(await page.getByLabel("Name", { exact: true }).inputValue()).toBe("x".repeat(256));
    expect(await page.getByLabel("Name", { exact: true }).getAttribute("aria-invalid")).toBe("true");
    await expectAccessible(page);
    // On a phone: no sideways scrolling of the page (the keys' table scrolls in its own box).
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto("/console/api-keys");
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
  });

  it("refuses to revoke the last live key, and lets a key revoke itself, which ends its session at once", async () => {
    const own = await createShop();
    const page = await newPage();
    await signInShop(page, own);
    await page.goto("/console/api-keys");
    await page.getByRole("button", { name: /^Revoke key .*\(signs you out\)$/ }).click();
    expect(await page.locator(".form-error").innerText()).toBe("This is the account's last live API key: create another key first, then revoke this one.");
    expect((await api(own, "GET", "/api/v1")).status).toBe(200);

    const spare = await api(own, "POST", "/api/v1/api-keys", { name: "spare" });
    const other = await newPage();
    await signInShop(other, own);
    await page.goto("/console/api-keys");
    await page.getByRole("button", { name: /^Revoke key .*\(signs you out\)$/ }).click();
    await page.waitForURL("**/console/sign-in");
    expect(await page.getByRole("status").innerText()).toBe("You revoked the API key you signed in with, which ended this session. Sign in with another key.");
    expect((await api(own, "GET", "/api/v1")).status).toBe(401);
    // Every session opened with that key ended at once; the spare key still works.
    await other.goto("/console/orders");
    expect(new URL(other.url()).pathname).toBe("/console/sign-in");
    await signInShop(other, { accountId: own.accountId, apiKey: spare.json.api_key });
    expect(new URL(other.url()).pathname).toBe("/console");
  });
});
