// A file supplier set up in the console (issue 31), against the real sshd the suite starts
// (test/lib/file-transfer/sftp-server.global.ts): created with its server, user and password; tested,
// which shows the host key the server holds; that key accepted and pinned; tested again (every check
// passing); saved with no signing secret handed out; the password never rendered back.
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, closeBrowser, createShop, expectAccessible, newPage, signInShop, type Shop } from "../browser/console";

const sftp = inject("sftp");
let shop: Shop;
let page: Page;

beforeAll(async () => {
  shop = await createShop();
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(() => closeBrowser());

const testResult = () => page.locator("#file-test");

async function runTest() {
  const before = await testResult().innerHTML();
  await page.getByRole("button", { name: "Test the connection" }).click();
  await page.waitForFunction((html) => document.querySelector("#file-test")?.innerHTML !== html, before, { timeout: 40_000 });
}

describe("a file supplier set up in the console", () => {
  it("is created, tested and its host key accepted, against a real SFTP server", async () => {
    await page.goto("/console/suppliers/new");
    await page.getByLabel("Name", { exact: true }).fill("Tuinhout files");
    await page.locator('input[name="channel"][value="file"]').check();
    // What a file supplier does not use is out of sight.
    expect(await page.getByLabel("Webhook URL").isVisible()).toBe(false);
    expect(await page.getByLabel("E-mail address").isVisible()).toBe(false);
    await page.getByLabel("Protocol").selectOption("sftp");
    await page.getByLabel("Host", { exact: true }).fill(sftp.host);
    await page.getByLabel("Port", { exact: true }).fill(String(sftp.port));
    await page.getByLabel("User", { exact: true }).fill(sftp.username);
    await page.getByLabel("Password", { exact: true }).fill(sftp.password);
    await page.getByLabel("Order folder").fill("upload");
    await expectAccessible(page);

    // No key pinned: the test learns the server's key and logs in to nothing.
    await runTest();
    expect(await testResult().innerText()).toContain("The test failed: nothing can be sent there yet.");
    expect(await testResult().locator("li").first().innerText()).toContain(`✗ Connect and log in: host_key_mismatch: no host key is pinned: ${sftp.host}:${sftp.port} shows ${sftp.hostKeyFingerprint}`);
    expect(await testResult().locator(".host-key code").innerText()).toBe(sftp.hostKeyFingerprint);
    await expectAccessible(page);

    await page.getByRole("button", { name: "Accept this key" }).click();
    await expect.poll(() => page.getByLabel("Pinned host key (SFTP)").inputValue()).toBe(sftp.hostKeyFingerprint);
    expect(await page.locator("#field-ft_host_key_fingerprint-hint").innerText()).toBe("Accepted from the test: save to keep it.");

    // Pinned: every check passes, the password still as typed.
    await runTest();
    expect(await testResult().innerText()).toContain("The server passed every check: orders can be written there.");
    expect(await testResult().locator("li").allInnerTexts()).toEqual([
      `✓ Connect and log in: connected to sftp://${sftp.host}:${sftp.port} as ${sftp.username}`,
      expect.stringMatching(/^✓ List the order folder: \d+ entr(y|ies) in upload$/),
      expect.stringMatching(/^✓ Write a probe file: wrote upload\/order-intake-probe-[0-9a-f-]{36}\.txt$/),
      expect.stringMatching(/^✓ Delete the probe file: deleted upload\/order-intake-probe-[0-9a-f-]{36}\.txt$/),
    ]);

    await page.getByRole("button", { name: "Create supplier" }).click();
    await page.waitForURL(/\/console\/suppliers\/\d+$/);
    expect(await page.locator(".flash").innerText()).toBe("Supplier Tuinhout files created.");
    // No signing secret handed out, none to rotate.
    expect(await page.locator(".secret-once").count()).toBe(0);
    expect(await page.getByRole("heading", { name: "Signing secret" }).count()).toBe(0);
    expect(await page.content()).not.toContain(sftp.password);
    const id = Number(page.url().split("/").pop());
    const supplier = (await api(shop, "GET", `/api/v1/suppliers/${id}`)).json;
    expect(supplier).toMatchObject({
      channel: "file",
      file_transfer: {
        protocol: "sftp",
        host: sftp.host,
        port: sftp.port,
        username: sftp.username,
        authentication: "password",
        host_key_fingerprint: sftp.hostKeyFingerprint,
        directory: "upload",
        inbound: null,
      },
    });
    expect(JSON.stringify(supplier)).not.toContain(sftp.password);

    // The saved supplier's form: the password write-only, the stored one tested.
    expect(await page.getByLabel("Password", { exact: true }).inputValue()).toBe("");
    expect(await page.getByLabel("Pinned host key (SFTP)").inputValue()).toBe(sftp.hostKeyFingerprint);
    await runTest();
    expect(await testResult().innerText()).toContain("The server passed every check");
    await expectAccessible(page);
  });

  it("refuses what the API refuses, beside the field", async () => {
    await page.goto("/console/suppliers/new");
    await page.getByLabel("Name", { exact: true }).fill("Broken files");
    await page.locator('input[name="channel"][value="file"]').check();
    await page.getByLabel("Host", { exact: true }).fill(sftp.host);
    await page.getByLabel("User", { exact: true }).fill("orders");
    await page.getByLabel("Password", { exact: true }).fill("not-shown-again");
    await page.getByLabel("Order file name").fill("order.csv");
    await page.getByRole("button", { name: "Create supplier" }).click();
    await page.waitForLoadState();
    expect(await page.locator("#field-ft_filename-error").innerText()).toBe("The Order file name field must contain {dispatch_id}.");
    expect(await page.locator("#field-ft_host_key_fingerprint-error").innerText()).toBe("The Pinned host key field is required when protocol is sftp.");
    expect(await page.getByLabel("Password", { exact: true }).inputValue()).toBe("");
    expect(await page.content()).not.toContain("not-shown-again");
    const list = (await api(shop, "GET", "/api/v1/suppliers")).json.data as { name: string }[];
    expect(list.map((s) => s.name)).not.toContain("Broken files");
  });
});
