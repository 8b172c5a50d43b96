// POST /api/v1/shop-connections/{id}/test: the shop's reachability in words (DNS, refused, TLS,
// timeout), checked first by the service itself through ShopHttp; the platform's own checks after it.
import { describe, expect, it, inject } from "vitest";
import { createAccount } from "../helpers/factories";
import { call } from "../helpers/http";
import { remoteUrl } from "../helpers/fake-remote";
import { createStandInShop, standInShop } from "./stand-ins/client";
import { createConnection, WOO_BODY, WOO_KEYS } from "./support";

async function testOf(baseUrl: string) {
  const creds = await createAccount();
  const conn = await createConnection(creds, { ...WOO_BODY, base_url: baseUrl });
  const res = await call("POST", `/api/v1/shop-connections/${conn.id}/test`, { creds });
  // The credentials are never in the answer, whatever the checks say.
  for (const secret of Object.values(WOO_KEYS)) expect(res.text).not.toContain(secret);
  return { status: res.status, json: res.json };
}

describe("testing a shop connection: reachability", () => {
  it("says the connection was refused when nothing listens on the port", async () => {
    const closed = new URL(inject("closedPortUrl"));
    expect(await testOf(`${closed.origin}/shop`)).toEqual({
      status: 200,
      json: { ok: false, checks: [{ name: "connection", ok: false, message: `The connection to ${closed.host} was refused: nothing listens on port ${closed.port} there.` }] },
    });
  });

  it("says the host name does not resolve (DNS)", async () => {
    expect(await testOf("https://shop.invalid")).toEqual({
      status: 200,
      json: { ok: false, checks: [{ name: "connection", ok: false, message: "The host name shop.invalid does not resolve (DNS)." }] },
    });
  });

  it("says the TLS handshake failed when https meets a server that speaks plain http", async () => {
    const plain = new URL(remoteUrl("ok"));
    expect(await testOf(`https://${plain.host}${plain.pathname}`)).toEqual({
      status: 200,
      json: {
        ok: false,
        checks: [
          {
            name: "connection",
            ok: false,
            message: `${plain.host} accepted the connection, but the TLS handshake or the HTTP exchange failed (is it https on port ${plain.port}, with a valid certificate?).`,
          },
        ],
      },
    });
  });

  it("says the shop did not answer in time (the test's OUTBOUND_TIMEOUT_MS is 1 s)", async () => {
    const slow = new URL(remoteUrl("slow"));
    expect(await testOf(slow.href)).toEqual({
      status: 200,
      json: { ok: false, checks: [{ name: "connection", ok: false, message: `${slow.host} did not answer within 1 s.` }] },
    });
  });
});

describe("testing a shop connection against a stand-in WooCommerce shop", () => {
  /** A stand-in shop, a connection to it with the given keys (the shop's own by default), and the test's answer. */
  async function against(seed: Record<string, unknown>, keys?: (shop: Record<string, string>) => Record<string, string>) {
    const shop = await createStandInShop("woocommerce", { orders: [], ...seed });
    const creds = await createAccount();
    const credentials = keys ? keys(shop.credentials) : shop.credentials;
    const conn = await createConnection(creds, { ...WOO_BODY, base_url: shop.base_url, credentials });
    const res = await call("POST", `/api/v1/shop-connections/${conn.id}/test`, { creds });
    for (const secret of Object.values(credentials)) expect(res.text).not.toContain(secret);
    return { shop, status: res.status, json: res.json };
  }
  const connection = (baseUrl: string) => ({ name: "connection", ok: true, message: `Reached ${baseUrl}: the shop's server answered (404 on its home page is expected here; its API is checked next).` });
  const reachable = (baseUrl: string) => ({ name: "reachable", ok: true, message: `${baseUrl} answers with WooCommerce's REST API (wc/v3).` });

  it("good keys: every check passes, and nothing was written into the shop", async () => {
    const { shop, status, json } = await against({});
    expect([status, json]).toEqual([
      200,
      {
        ok: true,
        checks: [
          connection(shop.base_url),
          reachable(shop.base_url),
          { name: "credentials", ok: true, message: "The consumer key and secret are accepted, and the key may read orders." },
          { name: "write", ok: true, message: "The key has write permission (checked without writing anything)." },
          { name: "tracking", ok: true, message: "The Shipment Tracking extension is installed: tracking numbers are added to it." },
        ],
      },
    ]);
    const { received } = await standInShop(shop);
    expect(received.map((r) => `${r.method} ${r.path} ${r.answered}`)).toEqual([
      "GET / 404",
      "GET /wp-json 200",
      "GET /wp-json/wc/v3/orders 200",
      "POST /wp-json/wc/v3/orders/0/notes 400",
    ]);
  });

  it("a wrong consumer key or secret: the 401 in words, the checks that depend on it not made", async () => {
    const notChecked = [
      { name: "write", ok: false, message: "Not checked: the credentials are not accepted." },
      { name: "tracking", ok: true, message: "The Shipment Tracking extension is installed: tracking numbers are added to it." },
    ];
    const wrongKey = await against({}, (k) => ({ ...k, consumer_key: "ck_0000000000000000000000000000000000000000" }));
    expect(wrongKey.json).toEqual({
      ok: false,
      checks: [
        connection(wrongKey.shop.base_url),
        reachable(wrongKey.shop.base_url),
        { name: "credentials", ok: false, message: "The shop does not know this consumer key: copy it again from WooCommerce > Settings > Advanced > REST API (or create a new key)." },
        ...notChecked,
      ],
    });
    const wrongSecret = await against({}, (k) => ({ ...k, consumer_secret: "cs_0000000000000000000000000000000000000000" }));
    expect(wrongSecret.json).toEqual({
      ok: false,
      checks: [
        connection(wrongSecret.shop.base_url),
        reachable(wrongSecret.shop.base_url),
        { name: "credentials", ok: false, message: "The consumer secret does not belong to this consumer key: copy the secret shown when the key was created (or create a new key)." },
        ...notChecked,
      ],
    });
  });

  it("a read-only key and no Shipment Tracking extension with tracking set to it: each said", async () => {
    const shop = await createStandInShop("woocommerce", { orders: [], permissions: "read", extension: false });
    const creds = await createAccount();
    const conn = await createConnection(creds, { ...WOO_BODY, base_url: shop.base_url, credentials: shop.credentials, settings: { tracking: "extension" } });
    const res = await call("POST", `/api/v1/shop-connections/${conn.id}/test`, { creds });
    expect(res.json).toEqual({
      ok: false,
      checks: [
        connection(shop.base_url),
        reachable(shop.base_url),
        { name: "credentials", ok: true, message: "The consumer key and secret are accepted, and the key may read orders." },
        { name: "write", ok: false, message: "The key is read-only: give it Read/Write in WooCommerce > Settings > Advanced > REST API, or nothing can be written." },
        { name: "tracking", ok: false, message: 'The Shipment Tracking extension is not installed, and settings.tracking is "extension": install it, or set tracking to "auto" or "note".' },
      ],
    });
  });
});
