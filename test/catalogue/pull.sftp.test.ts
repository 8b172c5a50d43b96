// A feed pulled from a supplier's SFTP server: the real sshd of the SFTP tests
// (test/lib/file-transfer/sftp-server.global.ts), the file in a folder of this test's own
// (test/forwarding/file-channel-folders.global.ts makes upload/fc-30). The url names the server and
// the file; the login is the feed's credentials, as a supplier's file_transfer takes it: the password
// or private key sealed and never shown again, the host key pinned.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import worker from "../../src/index";
import { describe, expect, inject, it } from "vitest";
import { createFeed, feedCatalogue } from "../helpers/catalogue";
import { send, signIn } from "../helpers/console-http";
import { createAccount, seedSupplier } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { onSftpServer } from "../helpers/file-servers";

const server = inject("sftp");
const DIR = "upload/fc-30";
const urlOf = (path: string) => `sftp://${server.host}:${server.port}/${path}`;
const byPassword = { username: server.username, password: server.password, host_key_fingerprint: server.hostKeyFingerprint };
const byKey = { username: server.username, private_key: server.privateKey, host_key_fingerprint: server.hostKeyFingerprint };

const put = (path: string, body: string) => onSftpServer((s) => s.writeAtomic(path, new TextEncoder().encode(body)));
const stored = (feedId: number) =>
  env.DB.prepare("SELECT url, credentials, credentials_secret FROM product_feeds WHERE id = ?")
    .bind(feedId)
    .first<{ url: string; credentials: string | null; credentials_secret: string | null }>();
const feedCount = async (creds: Credentials) => (await call("GET", "/api/v1/product-feeds", { creds })).json.meta.total;

const CATALOGUE = {
  A: { ean13: null, name: "Alpha", purchase_price: 1.75, stock_quantity: 8, active: 1 },
  B: { ean13: null, name: "Beta", purchase_price: 2.5, stock_quantity: 3, active: 1 },
};

describe("a feed on an SFTP server", () => {
  it("is pulled over SFTP with a password and fills the catalogue", async () => {
    await put(`${DIR}/stock.csv`, "sku;name;purchase_price;stock_quantity\nA;Alpha;1,75;8\nB;Beta;2,50;3\n");
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { url: urlOf(`${DIR}/stock.csv`), credentials: byPassword });
    const res = await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ status: "succeeded", rows_read: 2, created: 2, updated: 0 });
    expect(await feedCatalogue(creds, feed.id)).toEqual(CATALOGUE);
  });

  it("is pulled over SFTP with a private key", async () => {
    await put(`${DIR}/stock-key.csv`, "sku;name;purchase_price;stock_quantity\nA;Alpha;1,75;8\nB;Beta;2,50;3\n");
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { url: urlOf(`${DIR}/stock-key.csv`), credentials: byKey });
    expect(feed.credentials).toEqual({ username: server.username, authentication: "private_key", host_key_fingerprint: server.hostKeyFingerprint });
    const res = await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ status: "succeeded", rows_read: 2, created: 2 });
    expect(await feedCatalogue(creds, feed.id)).toEqual(CATALOGUE);
  });

  it("on its schedule, the cron trigger opens the sealed key and pulls it", async () => {
    await put(`${DIR}/stock-cron.csv`, "sku;name;purchase_price;stock_quantity\nA;Alpha;1,75;8\nB;Beta;2,50;3\n");
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { url: urlOf(`${DIR}/stock-cron.csv`), credentials: byKey, schedule: "hourly" });
    const ctx = createExecutionContext();
    await worker.scheduled(createScheduledController({ scheduledTime: Date.now() + 60_000, cron: "*/5 * * * *" }), env, ctx);
    await waitOnExecutionContext(ctx);
    const history = await call("GET", `/api/v1/product-feeds/${feed.id}/imports`, { creds });
    expect(history.json.data).toHaveLength(1);
    expect(history.json.data[0]).toMatchObject({ trigger: "schedule", status: "succeeded", rows_read: 2, created: 2 });
    expect(await feedCatalogue(creds, feed.id)).toEqual(CATALOGUE);
  });

  it("a host key that is not the pinned one fails the import with that reason, and nothing changes", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { url: urlOf(`${DIR}/stock.csv`), credentials: { ...byPassword, host_key_fingerprint: "SHA256:" + "D".repeat(43) } });
    const res = await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
    const history = await call("GET", `/api/v1/product-feeds/${feed.id}/imports`, { creds });
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ message: "Bad Gateway", error: history.json.data[0].error });
    expect(history.json.data[0]).toMatchObject({ status: "failed", error: expect.stringMatching(/^The feed file could not be read from sftp:\/\/.*: host_key_mismatch: /) });
    expect(await feedCatalogue(creds, feed.id)).toEqual({});
  });

  it("no read shows the secret: the API shows the user, the fingerprint and which secret is stored; the console neither", async () => {
    const creds = await createAccount();
    const password = "feed-secret-hunter2";
    const { feed } = await createFeed(creds, { url: urlOf(`${DIR}/stock.csv`), credentials: { ...byPassword, password } });
    const shown = { username: server.username, authentication: "password", host_key_fingerprint: server.hostKeyFingerprint };
    expect(feed.credentials).toEqual(shown);
    expect(feed.url).toBe(urlOf(`${DIR}/stock.csv`));
    const one = await call("GET", `/api/v1/product-feeds/${feed.id}`, { creds });
    expect(one.json.credentials).toEqual(shown);
    expect(JSON.stringify(one.json)).not.toContain(password);
    expect(JSON.stringify((await call("GET", "/api/v1/product-feeds", { creds })).json)).not.toContain(password);
    const updated = await call("PATCH", `/api/v1/product-feeds/${feed.id}`, { creds, body: { name: "Renamed" } });
    expect(updated.json.credentials).toEqual(shown);
    expect(JSON.stringify(updated.json)).not.toContain(password);

    const row = await stored(feed.id);
    expect(row!.credentials_secret).toMatch(/^v1\.[0-9a-f]{8}\.[\w-]+\.[\w-]+$/);
    expect(JSON.stringify(row)).not.toContain(password);

    const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
    for (const path of [`/console/catalogue/feeds/${feed.id}`, `/console/catalogue/feeds/${feed.id}/edit`, "/console/catalogue"]) {
      const page = await send(path, { jar });
      expect(page.status).toBe(200);
      expect(await page.text()).not.toContain(password);
    }
  });

  it("a changed name keeps the stored secret; a new password replaces it", async () => {
    await put(`${DIR}/stock-change.csv`, "sku;name;purchase_price;stock_quantity\nA;Alpha;1,75;8\nB;Beta;2,50;3\n");
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { url: urlOf(`${DIR}/stock-change.csv`), credentials: { ...byPassword, password: "wrong-password" } });
    const sealed = (await stored(feed.id))!.credentials_secret;
    await call("PATCH", `/api/v1/product-feeds/${feed.id}`, { creds, body: { name: "Renamed", url: urlOf(`${DIR}/stock-change.csv`) } });
    expect((await stored(feed.id))!.credentials_secret).toBe(sealed);
    const refused = await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
    expect(refused.status).toBe(502);
    const patched = await call("PATCH", `/api/v1/product-feeds/${feed.id}`, { creds, body: { credentials: byPassword } });
    expect(patched.status).toBe(200);
    expect((await stored(feed.id))!.credentials_secret).not.toBe(sealed);
    const res = await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
    expect(res.status).toBe(201);
    expect(await feedCatalogue(creds, feed.id)).toEqual(CATALOGUE);
  });

  it("a url holding a user or password, or an sftp login without a pinned host key, is a 422 and nothing is stored", async () => {
    const creds = await createAccount();
    const supplier = await seedSupplier(creds.accountId);
    const refused = async (body: Record<string, unknown>) => {
      const res = await call("POST", "/api/v1/product-feeds", { creds, body: { supplier_id: supplier.id, name: "x", format: "csv", ...body } });
      return { status: res.status, json: res.json };
    };
    const invalid = (errors: Record<string, string[]>) => ({ status: 422, json: { message: "Errors", errors } });
    const inUrl = "The url field must not hold a user name or password: give them in credentials (username, and password or private_key), where the secret is stored encrypted.";
    expect(await refused({ url: `sftp://u:p@${server.host}/stock.csv`, credentials: byPassword })).toEqual(invalid({ url: [inUrl] }));
    expect(await refused({ url: `ftp://u@${server.host}/stock.csv` })).toEqual(invalid({ url: [inUrl] }));
    expect(await refused({ url: `sftp://${server.host}/stock.csv?host_key_fingerprint=${encodeURIComponent(server.hostKeyFingerprint)}`, credentials: byPassword })).toEqual(
      invalid({ url: ["The url field must not hold host_key_fingerprint: give it in credentials.host_key_fingerprint."] }),
    );
    expect(await refused({ url: urlOf("stock.csv") })).toEqual(invalid({ credentials: ["The credentials field is required when url is an ftp, ftps or sftp url."] }));
    expect(await refused({ url: urlOf("stock.csv"), credentials: { username: "u", password: "p" } })).toEqual(
      invalid({ "credentials.host_key_fingerprint": ["The credentials.host_key_fingerprint field is required when protocol is sftp."] }),
    );
    expect(await refused({ url: `ftp://${server.host}/stock.csv`, credentials: { username: "u", private_key: server.privateKey } })).toEqual(
      invalid({ "credentials.private_key": ["The credentials.private_key field is only for protocol sftp."] }),
    );
    expect(await refused({ url: urlOf("stock.csv"), credentials: { username: "u", host_key_fingerprint: server.hostKeyFingerprint } })).toEqual(
      invalid({ "credentials.password": ["The credentials.password field is required when no private_key is given."] }),
    );
    expect(await refused({ url: "https://feeds.example/stock.csv", credentials: byPassword })).toEqual(
      invalid({ "credentials.host_key_fingerprint": ["The credentials.host_key_fingerprint field is only for an sftp url."] }),
    );
    expect(await feedCount(creds)).toBe(0);

    // On a change: the feed as it was.
    const { feed } = await createFeed(creds, { url: urlOf(`${DIR}/stock.csv`), credentials: byPassword });
    const before = await stored(feed.id);
    const patch = async (body: Record<string, unknown>) => {
      const res = await call("PATCH", `/api/v1/product-feeds/${feed.id}`, { creds, body });
      return { status: res.status, json: res.json };
    };
    expect(await patch({ url: `sftp://u:p@${server.host}/stock.csv` })).toEqual(invalid({ url: [inUrl] }));
    expect(await patch({ credentials: { username: "u", password: "p" } })).toEqual(
      invalid({ "credentials.host_key_fingerprint": ["The credentials.host_key_fingerprint field is required when protocol is sftp."] }),
    );
    expect(await patch({ url: `ftp://${server.host}/stock.csv` })).toEqual(invalid({ credentials: ["The credentials field is required when url is an ftp, ftps or sftp url."] }));
    expect(await stored(feed.id)).toEqual(before);
  });

  it("credentials' limits: username 255 and password 1,024 characters are taken, one more is a 422 with nothing stored", async () => {
    const creds = await createAccount();
    const supplier = await seedSupplier(creds.accountId);
    const create = (credentials: Record<string, unknown>) =>
      call("POST", "/api/v1/product-feeds", { creds, body: { supplier_id: supplier.id, name: "x", format: "csv", url: urlOf("stock.csv"), credentials: { ...byPassword, ...credentials } } });
    const atMost = await create({ username: "u".repeat(255), password: "p".repeat(1024) });
    expect(atMost.status).toBe(201);
    expect(atMost.json.credentials.username).toBe("u".repeat(255));
    const over = await create({ username: "u".repeat(256), password: "p".repeat(1025) });
    expect({ status: over.status, json: over.json }).toEqual({
      status: 422,
      json: {
        message: "Errors",
        errors: {
          "credentials.username": ["The credentials.username field must not be greater than 255 characters."],
          "credentials.password": ["The credentials.password field must not be greater than 1024 characters."],
        },
      },
    });
    expect(await feedCount(creds)).toBe(1);
  });

  it("an http(s) feed without a login: the url as given, no credentials (a login in the url: test/catalogue/feeds.login.test.ts)", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { url: "https://feeds.example/stock.csv" });
    expect(feed).toMatchObject({ url: "https://feeds.example/stock.csv", credentials: null });
  });
});
