// Signing in and out of the three areas in a real browser, sessions that end (idle, absolute,
// revoked key, changed admin token), CSRF refusals and tenant isolation.
import type { Page } from "playwright-core";
import { afterAll, describe, expect, it } from "vitest";
import {
  admin,
  ageSessions,
  api,
  closeBrowser,
  createShop,
  expectAccessible,
  newPage,
  screenshot,
  signInOperator,
  signInShop,
  signInSupplier,
  unique,
  type Shop,
} from "../browser/console";

afterAll(closeBrowser);

const mainText = async (page: Page) => (await page.locator("main").innerText()).trim();
const pathOf = (page: Page) => new URL(page.url()).pathname;

async function supplierWithKey(shop: Shop) {
  const supplier = await api(shop, "POST", "/api/v1/suppliers", { name: unique("Supplier"), channel: "pull" });
  const key = await api(shop, "POST", `/api/v1/suppliers/${supplier.json.id}/keys`, { name: "portal" });
  return { supplierId: supplier.json.id as number, keyId: key.json.id as number, key: key.json.key as string };
}

describe("the shop console", () => {
  it("leads a browser from / to the sign-in, which every field labels and axe accepts", async () => {
    const page = await newPage();
    await page.goto("/");
    expect(pathOf(page)).toBe("/console/sign-in");
    expect(await page.getByLabel("Account ID").getAttribute("name")).toBe("account_id");
    expect(await page.getByLabel("API key").getAttribute("type")).toBe("password");
    await screenshot(page, "sign-in");
    await expectAccessible(page);
    const phone = await newPage({ viewport: { width: 360, height: 740 }, isMobile: true });
    for (const path of ["/console/sign-in", "/supplier/sign-in", "/operator/sign-in"]) {
      await phone.goto(path);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(360);
    }
  });

  it("refuses a wrong key beside the field, keeps what was typed, then signs in and out", async () => {
    const shop = await createShop();
    const page = await newPage();
    await signInShop(page, { accountId: shop.accountId, apiKey: "oik_wrong" });
    expect(pathOf(page)).toBe("/console/sign-in");
    expect(await page.locator("#field-api_key-error").innerText()).toBe("The account ID and API key do not match an active key.");
    expect(await page.getByLabel("API key").getAttribute("aria-invalid")).toBe("true");
    expect(await page.getByLabel("Account ID").inputValue()).toBe(String(shop.accountId));
    await expectAccessible(page);

    await page.getByLabel("Account ID").fill("");
    await page.getByRole("button", { name: "Sign in" }).click();
    expect(await page.locator("#field-account_id-error").innerText()).toBe("The Account ID field is required.");
    expect(await page.locator("#field-api_key-error").innerText()).toBe("The API key field is required.");

    await signInShop(page, shop);
    expect(pathOf(page)).toBe("/console");
    expect(await page.getByRole("banner").innerText()).toContain(shop.name);
    const cookie = (await page.context().cookies()).find((c) => c.name === "oi_shop_session")!;
    expect({ httpOnly: cookie.httpOnly, sameSite: cookie.sameSite, secure: cookie.secure }).toEqual({ httpOnly: true, sameSite: "Lax", secure: false });

    await page.getByRole("button", { name: "Sign out" }).click();
    expect(pathOf(page)).toBe("/console/sign-in");
    expect(await page.getByRole("status").innerText()).toBe("You are signed out.");
    await page.goto("/console/orders");
    expect(pathOf(page)).toBe("/console/sign-in");
  });

  it("is operable from the keyboard alone, with a visible focus", async () => {
    const shop = await createShop();
    const page = await newPage();
    await page.goto("/console/sign-in");
    /** The focused element: what it is and whether its focus ring shows (an outline of some width). */
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement;
        const style = getComputedStyle(el);
        return { text: (el.getAttribute("aria-label") ?? el.textContent ?? "").trim(), name: el.getAttribute("name"), ring: style.outlineStyle !== "none" && parseFloat(style.outlineWidth) > 0 };
      });
    await page.keyboard.press("Tab");
    expect(await focused()).toEqual({ text: "Skip to content", name: null, ring: true });
    // Tab on to the first field, type, and send the form with Enter.
    for (let i = 0; i < 10 && (await focused()).name !== "account_id"; i++) await page.keyboard.press("Tab");
    expect(await focused()).toMatchObject({ name: "account_id", ring: true });
    await page.keyboard.type(String(shop.accountId));
    await page.keyboard.press("Tab");
    expect(await focused()).toMatchObject({ name: "api_key", ring: true });
    await page.keyboard.type(shop.apiKey);
    await page.keyboard.press("Enter");
    await page.waitForURL("**/console");
    // Through the main navigation to the orders, by keyboard.
    for (let i = 0; i < 10 && (await focused()).text !== "Orders"; i++) await page.keyboard.press("Tab");
    expect(await focused()).toEqual({ text: "Orders", name: null, ring: true });
    await page.keyboard.press("Enter");
    await page.waitForURL("**/console/orders");
    // And out again: the sign-out button answers Enter.
    for (let i = 0; i < 15 && (await focused()).text !== "Sign out"; i++) await page.keyboard.press("Tab");
    expect(await focused()).toEqual({ text: "Sign out", name: null, ring: true });
    await page.keyboard.press("Enter");
    await page.waitForURL("**/console/sign-in");
  });

  it("comes back to the page asked for after signing in", async () => {
    const shop = await createShop();
    const page = await newPage();
    await page.goto("/console/orders?statuses=failed");
    expect(page.url()).toContain("/console/sign-in?next=%2Fconsole%2Forders%3Fstatuses%3Dfailed");
    await page.getByLabel("Account ID").fill(String(shop.accountId));
    await page.getByLabel("API key").fill(shop.apiKey);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL("**/console/orders?statuses=failed");
  });

  it("ends a session idle too long, and one past its absolute end", async () => {
    const shop = await createShop();
    const page = await newPage();
    await signInShop(page, shop);
    ageSessions("account_id = ? AND role = 'shop'", [shop.accountId], "last_seen_at = '2020-01-01T00:00:00.000000Z'");
    await page.goto("/console/orders");
    expect(pathOf(page)).toBe("/console/sign-in");
    expect(await page.getByRole("status").innerText()).toBe("Your session has ended. Sign in again.");

    await signInShop(page, shop);
    expect(pathOf(page)).toBe("/console");
    ageSessions("account_id = ? AND role = 'shop'", [shop.accountId], "expires_at = '2020-01-01T00:00:00.000000Z'");
    await page.reload();
    expect(pathOf(page)).toBe("/console/sign-in");
  });

  it("ends the session at once when its API key is revoked", async () => {
    const shop = await createShop();
    const page = await newPage();
    await signInShop(page, shop);
    await page.goto("/console/orders");
    expect(pathOf(page)).toBe("/console/orders");
    expect((await admin("DELETE", `/api-keys/${shop.apiKeyId}`)).status).toBe(204);
    await page.reload();
    expect(pathOf(page)).toBe("/console/sign-in");
    expect(await page.getByRole("status").innerText()).toBe("Your session has ended. Sign in again.");
  });

  it("refuses a form whose CSRF token is wrong, and a post from another site, and stays signed in", async () => {
    const shop = await createShop();
    const page = await newPage();
    await signInShop(page, shop);
    await page.locator('header form input[name="_csrf"]').evaluate((input) => ((input as HTMLInputElement).value = "forged"));
    await page.getByRole("button", { name: "Sign out" }).click();
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Request refused");
    expect(await mainText(page)).toContain("This form has expired or was not sent from this site. Reload the page and try again.");
    await expectAccessible(page);

    // The right token, but sent from another site: refused by the Origin check.
    await page.goto("/console");
    const token = await page.locator('header form input[name="_csrf"]').inputValue();
    const crossSite = await page.context().request.post("/console/sign-out", { form: { _csrf: token }, headers: { origin: "https://attacker.example" }, maxRedirects: 0 });
    expect(crossSite.status()).toBe(403);
    await page.goto("/console/orders");
    expect(pathOf(page)).toBe("/console/orders");
  });

  it("shows another account's order as the same 404 page as an unknown one", async () => {
    const owner = await createShop();
    const order = await api(owner, "POST", "/api/v1/orders", {
      external_id: unique("iso"),
      source: "test",
      total: 10,
      shipping_address: { first_name: "A", last_name: "B", address1: "Street 1", postcode: "1000AA", city: "Amsterdam", country: "NL" },
      products: [{ external_id: "p", name: "Thing", quantity: 1, price: 10 }],
    });
    const reference = String(order.json.reference);
    const page = await newPage();
    await signInShop(page, await createShop());
    const theirs = await page.goto(`/console/orders/${reference}`);
    const theirsText = await mainText(page);
    const unknown = await page.goto("/console/orders/1234567890123456");
    expect([theirs!.status(), unknown!.status()]).toEqual([404, 404]);
    expect(theirsText).toBe(await mainText(page));
    expect(theirsText).toContain("Page not found");
    await expectAccessible(page);
  });
});

describe("the supplier portal", () => {
  it("signs in with a supplier key, signs out, and ends when the key is revoked or the session idles", async () => {
    const shop = await createShop();
    const { supplierId, keyId, key } = await supplierWithKey(shop);
    const page = await newPage();
    await page.goto("/supplier");
    expect(pathOf(page)).toBe("/supplier/sign-in");
    await screenshot(page, "supplier-sign-in");
    await expectAccessible(page);

    await signInSupplier(page, "osk_wrong");
    expect(await page.locator("#field-supplier_key-error").innerText()).toContain("This supplier key is not valid");

    await signInSupplier(page, key);
    expect(pathOf(page)).toBe("/supplier");
    await page.getByRole("button", { name: "Sign out" }).click();
    expect(pathOf(page)).toBe("/supplier/sign-in");

    await signInSupplier(page, key);
    ageSessions("role = 'supplier' AND supplier_key_id = ?", [keyId], "last_seen_at = '2020-01-01T00:00:00.000000Z'");
    await page.reload();
    expect(pathOf(page)).toBe("/supplier/sign-in");

    await signInSupplier(page, key);
    expect(pathOf(page)).toBe("/supplier");
    expect((await api(shop, "DELETE", `/api/v1/suppliers/${supplierId}/keys/${keyId}`)).status).toBe(204);
    await page.reload();
    expect(pathOf(page)).toBe("/supplier/sign-in");
    // A shop session is no supplier session, and the reverse.
    await signInShop(page, shop);
    await page.goto("/supplier");
    expect(pathOf(page)).toBe("/supplier/sign-in");
  });
});

describe("the operator", () => {
  it("signs in with the admin token, signs out, and ends when the session idles or the token changes", async () => {
    const page = await newPage();
    await page.goto("/operator");
    expect(pathOf(page)).toBe("/operator/sign-in");
    await screenshot(page, "operator-sign-in");
    await expectAccessible(page);

    await signInOperator(page, "not-the-token");
    expect(await page.locator("#field-admin_token-error").innerText()).toBe("This admin token is not valid.");

    await signInOperator(page);
    expect(pathOf(page)).toBe("/operator/accounts");
    await page.getByRole("button", { name: "Sign out" }).click();
    expect(pathOf(page)).toBe("/operator/sign-in");

    await signInOperator(page);
    ageSessions("role = 'operator' AND last_seen_at > '2021-01-01'", [], "last_seen_at = '2020-01-01T00:00:00.000000Z'");
    await page.reload();
    expect(pathOf(page)).toBe("/operator/sign-in");

    // A session opened with another ADMIN_TOKEN (as after a rotation) is over.
    await signInOperator(page);
    ageSessions("role = 'operator' AND last_seen_at > '2021-01-01'", [], "operator_token_hash = 'opened-with-the-previous-token'");
    await page.reload();
    expect(pathOf(page)).toBe("/operator/sign-in");
  });
});
