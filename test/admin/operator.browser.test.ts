// The operator's pages in a real browser, each action checked afterwards through the admin API (or
// the shop's): accounts (list, create, volume per day), an account's API keys (issue, list, revoke:
// the key's console session and API calls are refused at once), and the pipeline (backlog, sweeper
// runs, a parked order and a dead letter produced through the real queue and replayed, failing
// webhook deliveries of every account). axe on every page.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  admin,
  api,
  BASE,
  closeBrowser,
  columnTexts,
  createShop,
  expectAccessible,
  fireCron,
  newPage,
  onWorkerDb,
  penOrder,
  pullSupplier,
  readWorkerDb,
  screenshot,
  signInOperator,
  signInShop,
  unique,
  until,
  type Shop,
} from "../browser/console";

let operator: Page;

beforeAll(async () => {
  operator = await newPage();
  await signInOperator(operator);
});
afterAll(closeBrowser);

const row = (page: Page, text: string) => page.getByRole("row").filter({ hasText: text });
/** Opens a form that unfolds from a summary (it may be open already: an account without keys). */
async function unfold(page: Page, summary: string) {
  await page.locator("details", { has: page.locator("summary", { hasText: summary }) }).evaluate((d: HTMLDetailsElement) => (d.open = true));
}

describe("the operator's accounts", () => {
  it("lists every account with its active keys, like the admin API", async () => {
    const shop = await createShop();
    await admin("POST", `/accounts/${shop.accountId}/api-keys`, { name: "second" });
    await operator.goto("/operator/accounts");
    expect(await operator.getByRole("heading", { level: 1 }).innerText()).toBe("Accounts");
    const listed = await admin("GET", "/accounts?per_page=100");
    expect(await columnTexts(operator, "Name")).toEqual(listed.json.data.slice(0, 50).map((a: { name: string }) => a.name));
    expect(await row(operator, shop.name).locator("td").last().innerText()).toBe("2");
    // Each account says its shard (createShop pins shard 0).
    expect(await row(operator, shop.name).locator("td").nth(3).innerText()).toBe("0");
    await screenshot(operator, "operator-accounts");
    await expectAccessible(operator);

    const phone = await newPage({ viewport: { width: 360, height: 740 }, isMobile: true });
    await signInOperator(phone);
    expect(await phone.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await expectAccessible(phone);
  });

  it("creates an account, refusing a bad name beside the field and keeping what was typed", async () => {
    await operator.goto("/operator/accounts");
    await unfold(operator, "Create an account");
    const tooLong = "x".repeat(256);
    await operator.getByLabel("Name").fill(tooLong);
    const refused = await Promise.all([operator.waitForResponse((r) => r.request().method() === "POST"), operator.getByRole("button", { name: "Create account" }).click()]);
    expect(refused[0].status()).toBe(422);
    expect(await operator.locator("#field-name-error").innerText()).toBe("The Name field must not be greater than 255 characters.");
    expect(await operator.getByLabel("Name").inputValue()).toBe(tooLong);
    await expectAccessible(operator);
    await operator.getByLabel("Name").fill("");
    await operator.getByRole("button", { name: "Create account" }).click();
    expect(await operator.locator("#field-name-error").innerText()).toBe("The Name field is required.");

    const name = unique("Operator-made shop");
    await operator.getByLabel("Name").fill(name);
    await operator.getByRole("button", { name: "Create account" }).click();
    await operator.waitForURL(/\/operator\/accounts\/\d+$/);
    const id = Number(new URL(operator.url()).pathname.split("/").pop());
    expect(await operator.locator(".flash").innerText()).toBe(`Account '${name}' created with ID ${id}. Issue it an API key below.`);
    expect(await operator.getByRole("heading", { level: 1 }).innerText()).toBe(name);
    expect(await operator.getByRole("heading", { name: "No API keys yet" }).isVisible()).toBe(true);
    expect(await operator.getByRole("heading", { name: "No orders in the last 30 days" }).isVisible()).toBe(true);
    await expectAccessible(operator);
    const listed = await admin("GET", "/accounts?per_page=100");
    expect(listed.json.data.find((a: { id: number }) => a.id === id)).toEqual({ id, name, created_at: expect.any(String), active_api_keys: 0, shard: expect.any(Number) });
  });
});

describe("an account's keys and volume", () => {
  it("issues a key shown once, lists it like GET /admin/v1/accounts/{id}/api-keys, counts the orders per day", async () => {
    const account = await admin("POST", "/accounts", { name: unique("Volume shop") });
    await operator.goto(`/operator/accounts/${account.json.id}`);
    await unfold(operator, "Issue an API key");
    await operator.getByLabel("Expires on").fill("2020-01-01");
    await operator.getByLabel("Name", { exact: true }).fill("plugin");
    // The API takes an expiry in the past as it is: the key is born expired.
    await operator.getByRole("button", { name: "Issue API key" }).click();
    const secret = await operator.locator("#secret-once-value").inputValue();
    expect(secret).toMatch(/^oik_\S{20,}$/);
    expect(await operator.locator(".flash").innerText()).toBe(`API key ${secret.slice(0, 10)}… issued (plugin).`);
    expect(await operator.locator(".secret-once").innerText()).toContain("Copy it now: it is not shown again.");
    // Shown once: the next view of the page has it no more.
    await operator.reload();
    expect(await operator.locator(".secret-once").count()).toBe(0);

    const keys = await admin("GET", `/accounts/${account.json.id}/api-keys`);
    expect(keys.json.data).toEqual([
      { id: expect.any(Number), account_id: account.json.id, name: "plugin", prefix: secret.slice(0, 10), created_at: expect.any(String), last_used_at: null, expires_at: "2020-01-01T00:00:00.000000Z", revoked_at: null },
    ]);
    // Past its expiry: listed as expired, and refused by the API.
    await operator.goto(`/operator/accounts/${account.json.id}`);
    expect(await row(operator, "plugin").locator(".badge").innerText()).toBe("Expired");
    const expired: Shop = { accountId: account.json.id, apiKey: secret, apiKeyId: keys.json.data[0].id, name: account.json.name };
    expect((await api(expired, "GET", "/api/v1/orders")).status).toBe(401);

    // A live key; the shop sends two orders and a test order: today's row counts them.
    await unfold(operator, "Issue an API key");
    await operator.getByLabel("Name", { exact: true }).fill("live");
    await operator.getByRole("button", { name: "Issue API key" }).click();
    const live: Shop = { accountId: account.json.id, apiKey: await operator.locator("#secret-once-value").inputValue(), apiKeyId: 0, name: "live" };
    for (const [external, test] of [["V-1", false], ["V-2", false], ["V-3", true]] as const) {
      expect((await api(live, "POST", "/api/v1/orders", penOrder(external, { test }))).status).toBe(200);
    }

    await operator.goto(`/operator/accounts/${account.json.id}?days=7`);
    expect(await operator.getByRole("heading", { level: 1 }).innerText()).toBe(account.json.name);
    const today = new Date().toISOString().slice(0, 10);
    const volume = operator.getByRole("table", { name: /^Orders per day/ });
    expect(await volume.locator("tbody tr").count()).toBe(7);
    expect(await volume.locator("tbody tr").first().locator("td").allInnerTexts()).toEqual([today, "2", "1", ""]);
    expect(await operator.getByText("2 orders in the last 7 days (and 1 test order); days in UTC.").isVisible()).toBe(true);
    await screenshot(operator, "operator-account");
    await expectAccessible(operator);

    // 366 days at most (the workers suite reads exactly 366); one more is refused beside the field.
    const bad = await operator.goto(`/operator/accounts/${account.json.id}?days=367`);
    expect(bad!.status()).toBe(422);
    expect(await operator.locator("#field-days-error").innerText()).toBe("The Days field must not be greater than 366.");
    expect(await operator.getByRole("table", { name: /^API keys/ }).count()).toBe(1);
  });

  it("revokes a key: the shop's console session with it ends and its API calls are refused", async () => {
    const shop = await createShop();
    const shopConsole = await newPage();
    await signInShop(shopConsole, shop);
    expect(new URL(shopConsole.url()).pathname).toBe("/console");
    expect((await api(shop, "GET", "/api/v1/orders")).status).toBe(200);

    await operator.goto(`/operator/accounts/${shop.accountId}`);
    const prefix = (await admin("GET", `/accounts/${shop.accountId}/api-keys`)).json.data[0].prefix;
    await operator.getByRole("button", { name: `Revoke key ${prefix}` }).click();
    expect(await operator.locator(".flash").innerText()).toBe(`API key ${prefix}… revoked: its API calls and console sessions are refused from now on.`);
    expect(await row(operator, prefix).locator(".badge").innerText()).toMatch(/^Revoked /);
    expect(await operator.getByRole("button", { name: `Revoke key ${prefix}` }).count()).toBe(0);
    await expectAccessible(operator);

    expect((await admin("GET", `/accounts/${shop.accountId}/api-keys`)).json.data[0].revoked_at).toEqual(expect.any(String));
    expect(await api(shop, "GET", "/api/v1/orders")).toEqual({ status: 401, json: { message: "Unauthorized", error: "The api-key header holds a revoked key." } });
    await shopConsole.goto("/console/orders");
    expect(new URL(shopConsole.url()).pathname).toBe("/console/sign-in");
    expect(await shopConsole.locator(".flash").innerText()).toBe("Your session has ended. Sign in again.");
  });
});

describe("the pipeline", () => {
  it("shows the backlog and the sweepers' runs, parks a failing order and dead-letters its message, and replays both", async () => {
    // A shop whose orders cannot be routed: its matching fails (a fault injected into its D1 writes).
    const shop = await createShop();
    await pullSupplier(shop, "Pull supplier", "any");
    // The re-match the rule asked for is done first (its mark cleared): only the order's routing fails.
    await until(async () => readWorkerDb<{ r: string | null }>("SELECT rematch_requested_at AS r FROM accounts WHERE id = ?", [shop.accountId])[0].r === null, "the re-match");
    const trigger = `fault_operator_${shop.accountId}`;
    onWorkerDb(`CREATE TRIGGER ${trigger} BEFORE INSERT ON order_line_logs WHEN NEW.message LIKE 'Matched%'
        AND NEW.order_id IN (SELECT id FROM orders WHERE account_id = ${shop.accountId})
      BEGIN SELECT RAISE(ABORT, 'injected fault'); END`);
    let reference: string;
    let orderId: number;
    try {
      const created = await api(shop, "POST", "/api/v1/orders", penOrder("PARK-1", {}, { category: "any" }));
      reference = String(created.json.reference);
      // The queue's deliveries all fail (retried at once in this suite): the message is dead-lettered.
      const letter = await until(async () => {
        const open = await admin("GET", "/dead-letters?per_page=100");
        return open.json.data.find((d: { account_id: number; type: string }) => d.account_id === shop.accountId && d.type === "route_order");
      }, "the dead letter", 45_000);
      orderId = letter.order_id;
      // The cron, three minutes on: the sweeper re-queues the order; its next failures park it.
      await fireCron(Date.now() + 3 * 60_000);
      await until(async () => (await admin("GET", "/parked-orders?per_page=100")).json.data.find((p: { reference: string }) => p.reference === reference), "the parked order", 30_000);
    } finally {
      onWorkerDb(`DROP TRIGGER IF EXISTS ${trigger}`);
    }

    await operator.goto("/operator/pipeline");
    expect(await operator.getByRole("heading", { level: 1 }).innerText()).toBe("Pipeline health");
    expect(await operator.getByRole("table", { name: "Work waiting at each stage of the pipeline" }).locator("tbody tr td:first-child").allInnerTexts()).toEqual([
      "Orders waiting for routing",
      "Sends queued",
      "Sends in progress",
      "Events waiting to be published",
      "Webhook deliveries waiting",
      "Re-matches requested",
    ]);
    const given = operator.locator("ul.given-up li");
    expect(Number(await given.filter({ hasText: "Parked orders" }).locator(".badge").innerText())).toBeGreaterThanOrEqual(1);
    expect(Number(await given.filter({ hasText: "Open dead letters" }).locator(".badge").innerText())).toBeGreaterThanOrEqual(1);
    // The run that re-queued the order, recorded with what each sweeper did.
    const lastRun = operator.getByRole("table", { name: /cron runs/ }).locator("tbody tr").first();
    expect(await lastRun.locator("td").nth(2).innerText()).toMatch(/Orders re-queued for routing: \d+/);
    expect(await lastRun.locator("td").nth(3).innerText()).toBe("None");
    expect(await lastRun.locator("td").nth(4).innerText()).toMatch(/^[01]$/); // its shard
    await screenshot(operator, "operator-pipeline");
    await expectAccessible(operator);

    // The parked order, replayed once fixed: routed and sent to its supplier.
    await operator.getByRole("link", { name: "Parked orders" }).first().click();
    await operator.waitForURL("**/operator/parked-orders");
    const parkedRow = row(operator, reference);
    expect(await parkedRow.locator("td").nth(3).innerText()).toBe("10");
    expect(await parkedRow.locator("td").nth(4).innerText()).toContain("injected fault");
    expect(await parkedRow.locator("td").nth(6).innerText()).toBe("0"); // its shard
    await screenshot(operator, "operator-parked-orders");
    await expectAccessible(operator);
    await parkedRow.getByRole("button", { name: `Replay order ${reference}` }).click();
    expect(await operator.locator(".flash").innerText()).toBe(`Order ${reference} handed back to the pipeline: it is routed again, its attempts counted from zero.`);
    expect(await row(operator, reference).count()).toBe(0);
    await until(async () => (await api(shop, "GET", `/api/v1/orders/${reference}/dispatches`)).json.data[0]?.status === "awaiting_pickup", "the replayed order's dispatch");
    expect((await admin("GET", "/parked-orders?per_page=100")).json.data.map((p: { reference: string }) => p.reference)).not.toContain(reference);

    // Its dead letter, replayed: the message runs again and changes nothing. A second replay, from a
    // page opened before the first, is refused with the reason, and the list shows it as it is now.
    await operator.goto("/operator/dead-letters");
    const stale = await newPage();
    await signInOperator(stale);
    await stale.goto("/operator/dead-letters");
    const letterRow = operator.getByRole("row").filter({ hasText: `"orderId":${orderId!}` });
    const letterId = await letterRow.locator("td").first().innerText();
    await screenshot(operator, "operator-dead-letters");
    await expectAccessible(operator);
    await letterRow.getByRole("button", { name: `Replay dead letter ${letterId}` }).click();
    expect(await operator.locator(".flash").innerText()).toBe(`Dead letter ${letterId} (route_order) sent to the pipeline again.`);
    const replayed = (await admin("GET", "/dead-letters?status=replayed&per_page=100")).json.data.find((d: { id: number }) => d.id === Number(letterId));
    expect(replayed).toMatchObject({ status: "replayed", replayed_at: expect.any(String) });
    await stale.getByRole("button", { name: `Replay dead letter ${letterId}` }).click();
    expect(await stale.locator(".flash").innerText()).toBe(`Not possible now: Dead letter ${letterId} was already replayed at ${replayed.replayed_at}.`);
    expect(await stale.getByRole("button", { name: `Replay dead letter ${letterId}` }).count()).toBe(0);
    await stale.getByRole("link", { name: "Replayed" }).click();
    expect(await stale.getByRole("row").filter({ hasText: `"orderId":${orderId!}` }).locator(".badge").innerText()).toMatch(/^Replayed /);
    await expectAccessible(stale);
    expect((await api(shop, "GET", `/api/v1/orders/${reference}/dispatches`)).json.data).toHaveLength(1);
  }, 120_000);

  it("lists failing webhook deliveries of every account", async () => {
    const shop = await createShop();
    await api(shop, "POST", "/api/v1/webhooks", { url: `${BASE}/a-shop-endpoint-that-refuses`, events: ["order.created"] });
    await api(shop, "POST", "/api/v1/orders", penOrder("HOOK-1"));
    await until(async () => {
      await operator.goto("/operator/webhook-deliveries");
      return (await row(operator, shop.name).count()) > 0;
    }, "the failing delivery on the page");
    const cells = await row(operator, shop.name).locator("td").allInnerTexts();
    // Retried after 30 s (wrangler.toml's RETRY_BASE_SECONDS): one attempt so far, or two on a slow run.
    expect(cells).toEqual([shop.name, `${BASE}/a-shop-endpoint-that-refuses`, "order.created", "Retrying", expect.stringMatching(/^[12]$/), expect.stringMatching(/^HTTP 404: /), expect.any(String), "0"]);
    await screenshot(operator, "operator-webhook-deliveries");
    await expectAccessible(operator);
  });

  it("fits a 360 px wide screen on every operator page: tables scroll in their own box", async () => {
    const shop = await createShop();
    const phone = await newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await signInOperator(phone);
    for (const path of ["/operator/accounts", `/operator/accounts/${shop.accountId}`, "/operator/pipeline", "/operator/parked-orders", "/operator/dead-letters?status=all", "/operator/webhook-deliveries"]) {
      await phone.goto(path);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(360);
      await expectAccessible(phone);
    }
  });

  it("refuses an unknown dead-letter status as the API does", async () => {
    const bad = await operator.goto("/operator/dead-letters?status=lost");
    expect(bad!.status()).toBe(422);
    expect(await operator.locator("main").innerText()).toContain("The selected status is invalid. Allowed: open, replayed, all.");
    await expectAccessible(operator);
  });
});
