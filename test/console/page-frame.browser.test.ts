// What every page has, in a real browser: an icon (no 404 behind any page), and a refused sign-in
// said once, beside its field.
import { afterAll, describe, expect, it } from "vitest";
import { BASE, closeBrowser, createShop, expectAccessible, newPage, signInShop, signInSupplier } from "../browser/console";

afterAll(closeBrowser);

describe("the icon", () => {
  it("is linked from every area's pages and served, so no page's load has a 404", async () => {
    const shop = await createShop();
    const page = await newPage();
    const missing: string[] = [];
    page.on("response", (r) => {
      if (r.status() === 404) missing.push(r.url());
    });
    await page.goto("/console/sign-in");
    await signInShop(page, shop);
    for (const path of ["/console", "/console/orders", "/operator/sign-in", "/supplier/sign-in", "/docs"]) {
      await page.goto(path);
      await page.waitForLoadState("load");
    }
    // Chromium asks for the page's icon after the load: give it the time it takes, then look.
    const icon = await page.evaluate(async () => {
      const link = document.querySelector<HTMLLinkElement>("link[rel=icon]");
      return link ? { href: link.href, status: (await fetch(link.href)).status, type: (await fetch(link.href)).headers.get("content-type") } : null;
    });
    expect(icon).toEqual({ href: `${BASE}/favicon.svg`, status: 200, type: "image/svg+xml" });
    await page.goto("/console/orders");
    expect(await page.locator("link[rel=icon]").getAttribute("href")).toBe("/favicon.svg");
    // Browsers and tools that ask /favicon.ico by themselves find one too.
    const ico = await fetch(`${BASE}/favicon.ico`);
    expect([ico.status, ico.headers.get("content-type")]).toEqual([200, "image/vnd.microsoft.icon"]);
    expect(missing).toEqual([]);
  });
});

describe("a refused sign-in", () => {
  it("says why once, beside the secret's field (shop, supplier and operator)", async () => {
    const shop = await createShop();
    const page = await newPage();
    await signInShop(page, { accountId: shop.accountId, apiKey: "oik_wrong" });
    const message = "The account ID and API key do not match an active key.";
    expect(await page.locator("#field-api_key-error").innerText()).toBe(message);
    expect(await page.getByText(message).count()).toBe(1);
    expect(await page.getByRole("alert").count()).toBe(0);
    await expectAccessible(page);

    await signInSupplier(page, "osk_wrong");
    expect(await page.getByText("This supplier key is not valid", { exact: false }).count()).toBe(1);

    await page.goto("/operator/sign-in");
    await page.getByLabel("Admin token").fill("wrong");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForLoadState("domcontentloaded");
    expect(await page.getByText("This admin token is not valid.").count()).toBe(1);
  });
});
