// The shop's webhooks in a real browser, each action checked afterwards through the API: a new
// subscription (refused beside its fields, then its secret shown once), its deliveries with every
// attempt to a real endpoint, redeliver, edit, pause and resume, rotate, delete; another account's
// webhook is the same 404 page as an unknown one; a forged CSRF token changes nothing.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, columnTexts, createShop, expectAccessible, newPage, penOrder, screenshot, signInShop, webhookReceiver, type Shop } from "../browser/console";

let shop: Shop;
let page: Page;
// The shop's own server, at the network edge: it accepts every event.
let endpoint: Awaited<ReturnType<typeof webhookReceiver>>;
let endpointUrl: string;

beforeAll(async () => {
  endpoint = await webhookReceiver();
  endpointUrl = endpoint.url;
  shop = await createShop();
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(async () => {
  await closeBrowser();
  await endpoint.close();
});

const flash = () => page.locator(".flash").innerText();
type Delivery = { id: number; status: string; attempts: { status_code: number | null }[] };
async function deliveries(id: number, done: (d: Delivery[]) => boolean): Promise<Delivery[]> {
  for (let i = 0; ; i++) {
    const list = (await api(shop, "GET", `/api/v1/webhooks/${id}/deliveries`)).json.data as Delivery[];
    if (done(list) || i > 120) return list;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("the webhooks pages", () => {
  let id: number;

  it("create a subscription, refusing a bad URL and no events beside the fields, and show its secret once", async () => {
    await page.goto("/console/webhooks");
    expect(await page.getByRole("heading", { name: "No webhooks yet" }).isVisible()).toBe(true);
    await page.getByRole("button", { name: "New webhook" }).click();
    await page.getByLabel("Endpoint URL").fill("not a url");
    // Every event type offered (order, order_line and return), each checked by default.
    for (const box of await page.getByRole("checkbox", { name: /^(order|return)/ }).all()) await box.uncheck();
    await page.getByRole("button", { name: "Create webhook" }).click();
    expect(await page.locator("#field-url-error").innerText()).toBe("The Endpoint URL field must be a valid URL.");
    expect(await page.locator("#field-events-error").innerText()).toBe("The Events field is required.");
    expect(await page.getByLabel("Endpoint URL").inputValue()).toBe("not a url");
    await expectAccessible(page);

    await page.getByLabel("Endpoint URL").fill(endpointUrl);
    await page.getByRole("checkbox", { name: "order.created" }).check();
    await page.getByRole("button", { name: "Create webhook" }).click();
    await page.waitForURL(/\/console\/webhooks\/\d+$/);
    id = Number(new URL(page.url()).pathname.split("/").pop());
    expect(await flash()).toBe("Webhook created.");
    expect(await page.getByRole("textbox", { name: "Signing secret of the new webhook" }).inputValue()).toMatch(/^whsec_/);
    expect((await api(shop, "GET", `/api/v1/webhooks/${id}`)).json).toMatchObject({ url: endpointUrl, events: ["order.created"], active: true });
  });

  it("show each delivery with its attempts, and redeliver one, as the API shows", async () => {
    await api(shop, "POST", "/api/v1/orders", penOrder("WH-1"));
    const [delivered] = await deliveries(id, (d) => d[0]?.status === "delivered");
    expect(delivered.attempts.map((a) => a.status_code)).toEqual([200]);
    await page.reload();
    expect(await columnTexts(page, "Status")).toEqual(["Delivered"]);
    expect((await columnTexts(page, "Attempts"))[0]).toMatch(/HTTP 200 · \d+ ms/);
    await screenshot(page, "webhook");
    await expectAccessible(page);

    await page.getByRole("button", { name: `Redeliver delivery #${delivered.id}` }).click();
    await page.waitForURL(`**/console/webhooks/${id}`);
    expect(await flash()).toBe(`Delivery #${delivered.id} is being sent again.`);
    const again = await deliveries(id, (d) => d[0].status === "delivered" && d[0].attempts.length === 2);
    expect(again[0].attempts.map((a) => a.status_code)).toEqual([200, 200]);
    expect(endpoint.received.length).toBe(2);
  });

  it("saves the URL and events, pauses and resumes, rotates the secret, as the API shows", async () => {
    await page.goto(`/console/webhooks/${id}`);
    await page.getByRole("checkbox", { name: "order.completed" }).check();
    await page.getByLabel("Endpoint URL").fill(`${endpointUrl}/v2`);
    await page.getByRole("button", { name: "Save webhook" }).click();
    await page.waitForURL(`**/console/webhooks/${id}`);
    expect(await flash()).toBe("Webhook saved.");
    expect((await api(shop, "GET", `/api/v1/webhooks/${id}`)).json).toMatchObject({ url: `${endpointUrl}/v2`, events: ["order.created", "order.completed"] });

    await page.getByRole("button", { name: "Pause the webhook" }).click();
    await page.waitForURL(`**/console/webhooks/${id}`);
    expect(await flash()).toBe("Webhook paused: no deliveries are made until it is resumed.");
    expect((await api(shop, "GET", `/api/v1/webhooks/${id}`)).json.active).toBe(false);
    expect(await page.getByRole("button", { name: /^Redeliver/ }).isDisabled()).toBe(true);
    await page.getByRole("button", { name: "Resume the webhook" }).click();
    await page.waitForURL(`**/console/webhooks/${id}`);
    expect((await api(shop, "GET", `/api/v1/webhooks/${id}`)).json.active).toBe(true);

    await page.getByRole("button", { name: "Rotate signing secret" }).click();
    await page.waitForURL(`**/console/webhooks/${id}`);
    const secret = await page.getByRole("textbox", { name: "New signing secret of the webhook" }).inputValue();
    expect(secret).toMatch(/^whsec_/);
    await page.goto("/console/webhooks");
    expect(await columnTexts(page, "Endpoint")).toEqual([`${endpointUrl}/v2`]);
    await expectAccessible(page);
  });

  it("shows another account's webhook as the same 404 page as an unknown one, and refuses a forged CSRF token", async () => {
    const other = await createShop();
    const theirs = (await api(other, "POST", "/api/v1/webhooks", { url: "https://other.example/hooks", events: ["order.created"] })).json;
    const res = await page.goto(`/console/webhooks/${theirs.id}`);
    const text = await page.locator("main").innerText();
    const unknown = await page.goto("/console/webhooks/999999999");
    expect([res!.status(), unknown!.status()]).toEqual([404, 404]);
    expect(text).toBe(await page.locator("main").innerText());

    await page.goto(`/console/webhooks/${id}`);
    await page.locator('form[action$="/pause"] input[name="_csrf"]').evaluate((input) => ((input as HTMLInputElement).value = "forged"));
    await page.getByRole("button", { name: "Pause the webhook" }).click();
    expect(await page.getByRole("heading", { level: 1 }).innerText()).toBe("Request refused");
    expect((await api(shop, "GET", `/api/v1/webhooks/${id}`)).json.active).toBe(true);
  });

  it("fits a 360 px screen, and deletes the webhook", async () => {
    const phone = await newPage({ viewport: { width: 360, height: 740 }, isMobile: true, hasTouch: true });
    await signInShop(phone, shop);
    for (const path of ["/console/webhooks", "/console/webhooks/new", `/console/webhooks/${id}`]) {
      await phone.goto(path);
      expect(await phone.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(360);
    }
    await expectAccessible(phone);
    await phone.getByText("Delete…").click();
    await phone.getByRole("button", { name: "Delete the webhook" }).click();
    await phone.waitForURL("**/console/webhooks");
    expect(await phone.locator(".flash").innerText()).toBe("Webhook deleted, with its delivery history.");
    expect((await api(shop, "GET", `/api/v1/webhooks/${id}`)).status).toBe(404);
  });
});
