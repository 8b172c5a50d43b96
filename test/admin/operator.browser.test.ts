// The operator's pages in a real browser: the accounts, as GET /admin/v1/accounts lists them.
import { afterAll, describe, expect, it } from "vitest";
import { admin, closeBrowser, columnTexts, createShop, expectAccessible, newPage, screenshot, signInOperator } from "../browser/console";

afterAll(closeBrowser);

describe("the operator's accounts", () => {
  it("lists every account with its active keys, like the admin API", async () => {
    const shop = await createShop();
    await admin("POST", `/accounts/${shop.accountId}/api-keys`, { name: "second" });
    const page = await newPage();
    await signInOperator(page);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Accounts");
    const listed = await admin("GET", "/accounts?per_page=100");
    expect(await columnTexts(page, "Name")).toEqual(listed.json.data.slice(0, 50).map((a: { name: string }) => a.name));
    const row = page.getByRole("row").filter({ has: page.getByRole("cell", { name: shop.name, exact: true }) });
    expect(await row.locator("td").last().innerText()).toBe("2");
    await screenshot(page, "operator-accounts");
    await expectAccessible(page);

    const phone = await newPage({ viewport: { width: 360, height: 740 }, isMobile: true });
    await signInOperator(phone);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await expectAccessible(phone);
  });
});
