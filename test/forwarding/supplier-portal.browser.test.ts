// The supplier portal in a real browser: a supplier signs in with its key and sees its open
// dispatches (lines, quantities, ship-to), and only its own; usable on a phone.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { seedDemo, type DemoReferences } from "../../scripts/lib/demo-data.mjs";
import { api, BASE, closeBrowser, createShop, expectAccessible, newPage, screenshot, signInSupplier, type Shop } from "../browser/console";

let shop: Shop;
let refs: DemoReferences;
let supplierKey: string;

beforeAll(async () => {
  shop = await createShop("Demo shop");
  const demo = await seedDemo(BASE, shop);
  refs = demo.references;
  supplierKey = demo.supplierKey;
});
afterAll(closeBrowser);

describe("the supplier portal", () => {
  it("shows the supplier's open dispatches, oldest first, with lines, quantities and ship-to", async () => {
    const page = await newPage();
    await signInSupplier(page, supplierKey);
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Open dispatches");
    expect(await page.getByRole("banner").innerText()).toContain("Keukenhuis (supplier)");
    const cards = page.locator("article.dispatch");
    expect(await cards.locator("h2").allInnerTexts()).toEqual([expect.stringMatching(`^Order ${refs.answered} dispatch #\\d+$`), expect.stringMatching(`^Order ${refs.awaitingPickup} dispatch #\\d+$`)]);
    const board = cards.nth(1);
    expect(await board.locator(".badge").innerText()).toBe("Awaiting pickup");
    expect(await board.locator(".dispatch-lines li").innerText()).toMatch(/^2 × Cutting board\n/);
    expect(await board.locator("address").innerText()).toBe("Jan Jansen\nDamrak 1\n1012LG Amsterdam\nNetherlands (NL)\nPhone 0612345678");
    await screenshot(page, "supplier-portal");
    await expectAccessible(page);
  });

  it("shows a supplier nothing of other suppliers, and tells it when nothing waits", async () => {
    const other = await api(shop, "POST", "/api/v1/suppliers", { name: "Quiet supplier", channel: "pull" });
    const key = await api(shop, "POST", `/api/v1/suppliers/${other.json.id}/keys`, {});
    const page = await newPage();
    await signInSupplier(page, key.json.key);
    expect(await page.locator("article.dispatch").count()).toBe(0);
    expect(await page.getByRole("heading", { name: "Nothing waits for you" }).isVisible()).toBe(true);
    await expectAccessible(page);
  });

  it("is usable on a 360 px wide phone", async () => {
    const phone = await newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await signInSupplier(phone, supplierKey);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    expect(await phone.getByRole("button", { name: "Sign out" }).isVisible()).toBe(true);
    await expectAccessible(phone);
    await screenshot(phone, "supplier-portal-360");
  });
});
