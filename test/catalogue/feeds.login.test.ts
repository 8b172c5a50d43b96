// An http(s) feed's login (issue 30, "What we show"): refused in the url, taken as credentials,
// sealed and sent as HTTP Basic auth, and never shown again: not by the API (POST, GET, list, PATCH,
// the imports' source), not by the console's feed page or edit form. Feeds stored before with a
// login in the url keep working and show it nowhere either.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createAccount, seedSupplier, unique } from "../helpers/factories";
import { createFeed } from "../helpers/catalogue";
import { call, type Credentials } from "../helpers/http";
import { received, remoteUrl } from "../helpers/fake-remote";
import { getPage, signIn } from "../helpers/console-http";

const PASSWORD = "pa55-Wörd:secret";
const basic = (user: string, password: string) => `Basic ${btoa(String.fromCharCode(...new TextEncoder().encode(`${user}:${password}`)))}`;

/** Every face of the feed, as text: none may hold the password. */
async function faces(creds: Credentials, feedId: number) {
  const one = await call("GET", `/api/v1/product-feeds/${feedId}`, { creds });
  const list = await call("GET", "/api/v1/product-feeds?per_page=100", { creds });
  const imports = await call("GET", `/api/v1/product-feeds/${feedId}/imports`, { creds });
  const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
  const page = await getPage(`/console/catalogue/feeds/${feedId}`, jar);
  const form = await getPage(`/console/catalogue/feeds/${feedId}/edit`, jar);
  expect([one.status, list.status, imports.status, page.status, form.status]).toEqual([200, 200, 200, 200, 200]);
  return { one: one.json, list: list.json, imports: imports.json, page: page.html, form: form.html };
}

const noSecret = (text: string) => {
  expect(text).not.toContain("pa55");
  expect(text).not.toContain(encodeURIComponent(PASSWORD));
};

describe("an http(s) feed's login", () => {
  it("is refused in the url, with a 422 naming url, and nothing is stored", async () => {
    const creds = await createAccount();
    const supplier = await seedSupplier(creds.accountId);
    const url = `https://shop:${encodeURIComponent(PASSWORD)}@feeds.example/stock.csv`;
    const res = await call("POST", "/api/v1/product-feeds", { creds, body: { supplier_id: supplier.id, name: "Stock", format: "csv", url } });
    const message =
      "The url field must not hold a user name or password: give them in credentials (username and password, sent as HTTP Basic auth), where the password is stored encrypted.";
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ message: "Errors", errors: { url: [message] } });
    const user = await call("POST", "/api/v1/product-feeds", { creds, body: { supplier_id: supplier.id, name: "Stock", format: "csv", url: "http://shop@feeds.example/stock.csv" } });
    expect(user.json).toEqual({ message: "Errors", errors: { url: [message] } });
    const count = await env.DB.prepare("SELECT count(*) AS n FROM product_feeds WHERE account_id = ?").bind(creds.accountId).first<{ n: number }>();
    expect(count?.n).toBe(0);

    const { feed } = await createFeed(creds, { url: "https://feeds.example/stock.csv" });
    const patch = await call("PATCH", `/api/v1/product-feeds/${feed.id}`, { creds, body: { url } });
    expect(patch.json).toEqual({ message: "Errors", errors: { url: [message] } });
    expect((await call("GET", `/api/v1/product-feeds/${feed.id}`, { creds })).json.url).toBe("https://feeds.example/stock.csv");
  });

  it("refuses what Basic auth cannot carry: a private key, a host key, a ':' in the user", async () => {
    const creds = await createAccount();
    const supplier = await seedSupplier(creds.accountId);
    const res = await call("POST", "/api/v1/product-feeds", {
      creds,
      body: {
        supplier_id: supplier.id,
        name: "Stock",
        format: "csv",
        url: "https://feeds.example/stock.csv",
        credentials: { username: "a:b", password: "x", host_key_fingerprint: "SHA256:mVPwvezndPv/ARoIadVY98vAC0g+P/5633yTC4d/wXE" },
      },
    });
    expect(res.json).toEqual({
      message: "Errors",
      errors: {
        "credentials.username": ["The credentials.username field must not contain ':' for an http(s) url (HTTP Basic auth)."],
        "credentials.host_key_fingerprint": ["The credentials.host_key_fingerprint field is only for an sftp url."],
      },
    });
  });

  it("is taken as credentials: sent as Basic auth, and shown by no face, the password never", async () => {
    const creds = await createAccount();
    const url = remoteUrl("csv");
    const { feed } = await createFeed(creds, { url, credentials: { username: "shop@example", password: PASSWORD } });
    expect(feed.url).toBe(url);
    expect(feed.credentials).toEqual({ username: "shop@example", authentication: "password", host_key_fingerprint: null });
    noSecret(JSON.stringify(feed));

    const pulled = await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
    expect(pulled.json).toMatchObject({ status: "succeeded", source: url, created: 2 });
    const [request] = await received(url);
    expect(request.headers.authorization).toBe(basic("shop@example", PASSWORD));

    // A change that leaves the password out keeps it.
    const patched = await call("PATCH", `/api/v1/product-feeds/${feed.id}`, { creds, body: { name: "Renamed", credentials: { username: "other" } } });
    expect(patched.status).toBe(200);
    expect(patched.json.credentials).toEqual({ username: "other", authentication: "password", host_key_fingerprint: null });
    noSecret(JSON.stringify(patched.json));
    await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
    expect((await received(url))[1].headers.authorization).toBe(basic("other", PASSWORD));

    const shown = await faces(creds, feed.id);
    for (const text of [JSON.stringify(shown.one), JSON.stringify(shown.list), JSON.stringify(shown.imports), shown.page, shown.form]) noSecret(text);
    expect(shown.imports.data.map((i: { source: string }) => i.source)).toEqual([url, url]);
    expect(shown.form).toContain('name="credentials_password" type="password" value=""');

    // null removes the login.
    const cleared = await call("PATCH", `/api/v1/product-feeds/${feed.id}`, { creds, body: { credentials: null } });
    expect(cleared.json.credentials).toBeNull();
    const row = await env.DB.prepare("SELECT credentials, credentials_secret FROM product_feeds WHERE id = ?").bind(feed.id).first();
    expect(row).toEqual({ credentials: null, credentials_secret: null });
  });
});

describe("a feed stored with a login in its url (before such urls were refused)", () => {
  async function legacyFeed() {
    const creds = await createAccount();
    const url = remoteUrl("csv");
    const { feed } = await createFeed(creds, { url });
    const withLogin = url.replace("http://", `http://old%40shop:${encodeURIComponent(PASSWORD)}@`);
    await env.DB.prepare("UPDATE product_feeds SET url = ? WHERE id = ?").bind(withLogin, feed.id).run();
    return { creds, feed, url, withLogin };
  }

  it("keeps pulling with the login as Basic auth, and no face shows the login's password", async () => {
    const { creds, feed, url, withLogin } = await legacyFeed();
    const pulled = await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
    expect(pulled.json).toMatchObject({ status: "succeeded", source: url });
    expect((await received(url))[0].headers.authorization).toBe(basic("old@shop", PASSWORD));
    // An import recorded before, its source the whole url.
    await env.DB.prepare("UPDATE product_imports SET source = ? WHERE product_feed_id = ?").bind(withLogin, feed.id).run();

    const shown = await faces(creds, feed.id);
    expect(shown.one.url).toBe(url);
    expect(shown.one.credentials).toEqual({ username: "old@shop", authentication: "password", host_key_fingerprint: null });
    expect(shown.list.data.find((f: { id: number }) => f.id === feed.id).url).toBe(url);
    expect(shown.imports.data[0].source).toBe(url);
    for (const text of [JSON.stringify(shown.one), JSON.stringify(shown.list), JSON.stringify(shown.imports), shown.page, shown.form]) noSecret(text);
  });

  it("sent back as shown, moves its login into sealed credentials and keeps pulling", async () => {
    const { creds, feed, url } = await legacyFeed();
    const patched = await call("PATCH", `/api/v1/product-feeds/${feed.id}`, { creds, body: { url, name: unique("saved") } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ url, credentials: { username: "old@shop", authentication: "password", host_key_fingerprint: null } });
    noSecret(JSON.stringify(patched.json));
    const row = await env.DB.prepare("SELECT url, credentials_secret FROM product_feeds WHERE id = ?").bind(feed.id).first<{ url: string; credentials_secret: string }>();
    expect(row?.url).toBe(url);
    expect(row?.credentials_secret).toMatch(/^v1\./);
    noSecret(row!.credentials_secret);

    await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
    expect((await received(url))[0].headers.authorization).toBe(basic("old@shop", PASSWORD));
  });
});
