// A feed's login in the console's feed form (issues 30 and 31): an http(s) feed behind Basic auth is
// previewed and created with its user and password; the password is write-only: never rendered back
// (the edit form, the feed page, a refused save), kept when left empty, and what the server
// receives proves which one is used.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, columnTexts, createShop, expectAccessible, expectRefusedBeside, newPage, signInShop, type Shop } from "../browser/console";

const PASSWORD = "S3cret-pw-9q";
let shop: Shop;
let page: Page;
let server: Server;
let fileUrl: string;
/** The Authorization header of every request the supplier's server received. */
const seen: (string | undefined)[] = [];

beforeAll(async () => {
  shop = await createShop();
  await api(shop, "POST", "/api/v1/suppliers", { name: "Locked", channel: "manual" });
  // The supplier's server: the file for its one user only, as a server behind Basic auth answers.
  server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    if (req.headers.authorization !== `Basic ${Buffer.from(`shop:${PASSWORD}`).toString("base64")}`) {
      return void res.writeHead(401, { "www-authenticate": 'Basic realm="feeds"' }).end("who are you?");
    }
    res.writeHead(200, { "content-type": "text/csv" }).end("sku,name,purchase_price\nL-1,Lock,2.50\nL-2,Key,1.25\n");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  fileUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stock.csv`;
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await closeBrowser();
});

const feeds = async () => (await api(shop, "GET", "/api/v1/product-feeds")).json.data;
const passwordField = () => page.locator("#field-credentials_password");

describe("a feed's login in the console", () => {
  it("previews and creates an http feed behind Basic auth; the password is never rendered back", async () => {
    await page.goto("/console/catalogue/feeds/new");
    await page.getByLabel("Supplier").selectOption({ label: "Locked" });
    await page.getByLabel("Name", { exact: true }).fill("Locked stock");
    await page.getByLabel("URL").fill(fileUrl);
    await page.getByLabel("User").fill("shop");
    await passwordField().fill(PASSWORD);
    await expectAccessible(page);

    const before = await page.locator("#feed-preview").innerHTML();
    await page.getByRole("button", { name: "Preview the URL's first rows" }).click();
    await page.waitForFunction((html) => document.querySelector("#feed-preview")?.innerHTML !== html, before);
    expect(await columnTexts(page, "SKU")).toEqual(["L-1", "L-2"]);
    expect(seen.at(-1)).toBe(`Basic ${Buffer.from(`shop:${PASSWORD}`).toString("base64")}`);

    // A refused save: the error beside its field, the password typed must be typed again.
    await page.getByLabel("User").fill("sh:op");
    await page.getByRole("button", { name: "Create feed" }).click();
    await page.waitForLoadState();
    await expectRefusedBeside(page, "field-credentials_username", "The User field must not contain ':' for an http(s) url (HTTP Basic auth).");
    expect(await passwordField().inputValue()).toBe("");
    expect(await page.content()).not.toContain(PASSWORD);
    expect(await feeds()).toEqual([]);

    await page.getByLabel("User").fill("shop");
    await passwordField().fill(PASSWORD);
    await page.getByRole("button", { name: "Create feed" }).click();
    await page.waitForURL(/\/console\/catalogue\/feeds\/\d+$/);
    const [feed] = await feeds();
    expect(feed).toMatchObject({ url: fileUrl, credentials: { username: "shop", authentication: "password", host_key_fingerprint: null } });
    expect(JSON.stringify(feed)).not.toContain(PASSWORD);
    expect(await page.locator("dl.facts").innerText()).toContain("shop (password stored, never shown)");
    expect(await page.content()).not.toContain(PASSWORD);

    // The edit form: the user, never the password; left empty, the stored one stays.
    await page.getByRole("button", { name: "Edit settings and mapping" }).click();
    await page.waitForURL(/\/edit$/);
    expect(await page.getByLabel("User").inputValue()).toBe("shop");
    expect(await passwordField().inputValue()).toBe("");
    expect(await page.locator("#field-credentials_password-hint").innerText()).toBe("A password is stored (never shown): leave empty to keep it.");
    expect(await page.content()).not.toContain(PASSWORD);
    await expectAccessible(page);
    await page.getByLabel("Name", { exact: true }).fill("Locked stock, renamed");
    await page.getByRole("button", { name: "Save feed" }).click();
    await page.waitForURL(/\/console\/catalogue\/feeds\/\d+$/);

    // Pulled after the save: the stored password still opens the server.
    await page.getByRole("button", { name: "Pull the URL now" }).click();
    await page.waitForURL(/\/console\/catalogue\/feeds\/\d+$/);
    const imports = (await api(shop, "GET", `/api/v1/product-feeds/${feed.id}/imports`)).json.data;
    expect(imports.map((i: { status: string; source: string; created: number }) => [i.status, i.source, i.created])).toEqual([["succeeded", fileUrl, 2]]);
  });

  it("offers the file server's login fields: user, write-only password or key, the pinned host key", async () => {
    await page.goto("/console/catalogue/feeds/new");
    await page.getByLabel("Supplier").selectOption({ label: "Locked" });
    await page.getByLabel("Name", { exact: true }).fill("SFTP stock");
    await page.getByLabel("URL").fill("sftp://127.0.0.1:2222/stock.csv");
    await page.getByLabel("User").fill("stock");
    await passwordField().fill("x-secret-x");
    await page.getByRole("button", { name: "Create feed" }).click();
    await page.waitForLoadState();
    await expectRefusedBeside(page, "field-credentials_host_key_fingerprint", "The Pinned host key field is required when protocol is sftp.");
    expect(await passwordField().inputValue()).toBe("");
    expect(await page.locator("#field-credentials_private_key").inputValue()).toBe("");

    await passwordField().fill("x-secret-x");
    await page.getByLabel("Pinned host key (SFTP)").fill("SHA256:mVPwvezndPv/ARoIadVY98vAC0g+P/5633yTC4d/wXE");
    await page.getByRole("button", { name: "Create feed" }).click();
    await page.waitForURL(/\/console\/catalogue\/feeds\/\d+$/);
    const feed = (await feeds()).find((f: { name: string }) => f.name === "SFTP stock");
    expect(feed.credentials).toEqual({ username: "stock", authentication: "password", host_key_fingerprint: "SHA256:mVPwvezndPv/ARoIadVY98vAC0g+P/5633yTC4d/wXE" });
    await page.goto(`/console/catalogue/feeds/${feed.id}/edit`);
    expect(await page.getByLabel("Pinned host key (SFTP)").inputValue()).toBe("SHA256:mVPwvezndPv/ARoIadVY98vAC0g+P/5633yTC4d/wXE");
    expect(await page.content()).not.toContain("x-secret-x");
  });
});
