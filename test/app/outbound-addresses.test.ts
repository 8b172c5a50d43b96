// Where a connection may point, at every door an outbound address comes in by: a shop connection's
// base_url, a product feed's url, a supplier's webhook_url and file_transfer.host, an event
// webhook's url. The metadata address in any form, link-local, unspecified and (without the
// setting) private addresses get a 422 naming the field, and nothing is stored; loopback is taken
// with nothing to set; ALLOW_PRIVATE_NETWORKS = "true" takes private networks, never metadata.
import { createExecutionContext, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import type { Bindings } from "../../src/env";
import { createAccount, seedSupplier } from "../helpers/factories";
import { authHeaders, BASE, call, type Credentials } from "../helpers/http";
import { WOO_BODY } from "../shops/support";

const METADATA = "points to 169.254.169.254, a cloud metadata address, which is never reached.";
const PRIVATE = (shown: string) =>
  `points to ${shown}, a private network address (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7, fec0::/10, or a name only a private network resolves), reached only where the operator set ALLOW_PRIVATE_NETWORKS.`;
const LINK_LOCAL = (shown: string) => `points to ${shown}, a link-local address (169.254.0.0/16, fe80::/10), which is never reached.`;
const UNSPECIFIED = (shown: string) => `points to ${shown}, an unspecified address (0.0.0.0/8, ::), which is never reached.`;

type Door = {
  name: string;
  /** The error's field. */
  field: string;
  /** A create's body with `address` in the field (a URL, or a host for file_transfer.host). */
  body: (creds: Credentials, address: string) => Promise<unknown>;
  path: string;
  /** The address as the door takes it, from a host (a URL for most). */
  address: (host: string) => string;
  /** How many rows the account has behind this door. */
  stored: (creds: Credentials) => Promise<number>;
};

const count = async (sql: string, accountId: number) => (await env.DB.prepare(sql).bind(accountId).first<{ n: number }>())!.n;

const DOORS: Door[] = [
  {
    name: "a shop connection's base_url",
    field: "base_url",
    path: "/api/v1/shop-connections",
    body: async (_creds, address) => ({ ...WOO_BODY, base_url: address }),
    address: (host) => `https://${host}`,
    stored: (creds) => count("SELECT COUNT(*) AS n FROM shop_connections WHERE account_id = ?", creds.accountId),
  },
  {
    name: "a product feed's url",
    field: "url",
    path: "/api/v1/product-feeds",
    body: async (creds, address) => ({ supplier_id: (await seedSupplier(creds.accountId)).id, name: "Stock", format: "csv", url: address }),
    address: (host) => `http://${host}/latest/meta-data/`,
    stored: (creds) => count("SELECT COUNT(*) AS n FROM product_feeds WHERE account_id = ?", creds.accountId),
  },
  {
    name: "a supplier's webhook_url",
    field: "webhook_url",
    path: "/api/v1/suppliers",
    body: async (_creds, address) => ({ name: "Hooked", channel: "webhook", webhook_url: address }),
    address: (host) => `https://${host}/orders`,
    stored: (creds) => count("SELECT COUNT(*) AS n FROM suppliers WHERE account_id = ?", creds.accountId),
  },
  {
    name: "a supplier's file_transfer.host",
    field: "file_transfer.host",
    path: "/api/v1/suppliers",
    body: async (_creds, address) => ({ name: "Files", channel: "file", file_transfer: { protocol: "ftp", host: address, username: "orders", password: "secret-1" } }),
    address: (host) => host.replace(/^\[|\]$/g, ""),
    stored: (creds) => count("SELECT COUNT(*) AS n FROM suppliers WHERE account_id = ?", creds.accountId),
  },
  {
    name: "an event webhook's url",
    field: "url",
    path: "/api/v1/webhooks",
    body: async (_creds, address) => ({ url: address, events: ["order.created"] }),
    address: (host) => `https://${host}/hooks`,
    stored: (creds) => count("SELECT COUNT(*) AS n FROM webhook_subscriptions WHERE account_id = ?", creds.accountId),
  },
];

/** A request to a fresh app whose env holds ALLOW_PRIVATE_NETWORKS (the tests' Worker does not). */
async function withPrivateNetworks(creds: Credentials, path: string, body: unknown) {
  const ctx = createExecutionContext();
  const res = await createApp().fetch(
    new Request(`${BASE}${path}`, { method: "POST", headers: { ...authHeaders(creds), "content-type": "application/json" }, body: JSON.stringify(body) }),
    { ...env, ALLOW_PRIVATE_NETWORKS: "true" } as unknown as Bindings,
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return { status: res.status, json: (await res.json()) as { errors?: Record<string, string[]> } };
}

describe.each(DOORS)("outbound addresses: $name", (door) => {
  // [the host typed, what the 422 says after "The <field> field "]; a URL's parser writes the IPv4 forms as dotted decimal.
  const refused = (fileHost: boolean): [string, string][] => [
    ["169.254.169.254", METADATA],
    ["2852039166", fileHost ? `points to 2852039166 (that is 169.254.169.254), a cloud metadata address, which is never reached.` : METADATA],
    ["0251.0376.0251.0376", fileHost ? `points to 0251.0376.0251.0376 (that is 169.254.169.254), a cloud metadata address, which is never reached.` : METADATA],
    ["0xa9fea9fe", fileHost ? `points to 0xa9fea9fe (that is 169.254.169.254), a cloud metadata address, which is never reached.` : METADATA],
    ["[::ffff:169.254.169.254]", fileHost ? `points to ::ffff:169.254.169.254 (that is [::ffff:a9fe:a9fe]), a cloud metadata address, which is never reached.` : `points to [::ffff:a9fe:a9fe], a cloud metadata address, which is never reached.`],
    ["10.0.0.1", PRIVATE("10.0.0.1")],
    ["192.168.1.10", PRIVATE("192.168.1.10")],
    ["169.254.10.1", LINK_LOCAL("169.254.10.1")],
    ["0.0.0.0", UNSPECIFIED("0.0.0.0")],
  ];

  it("refuses the metadata address in every form, link-local, unspecified and private addresses with a 422 naming the field, storing nothing", async () => {
    const creds = await createAccount();
    const fileHost = door.field === "file_transfer.host";
    for (const [host, words] of refused(fileHost)) {
      const res = await call("POST", door.path, { creds, body: await door.body(creds, door.address(host)) });
      expect({ host, status: res.status, json: res.json }).toEqual({ host, status: 422, json: { message: "Errors", errors: { [door.field]: [`The ${door.field} field ${words}`] } } });
    }
    expect(await door.stored(creds)).toBe(0);
  });

  it("takes loopback with nothing to set", async () => {
    const creds = await createAccount();
    const host = door.field === "file_transfer.host" ? "127.0.0.1" : "127.0.0.1:8080";
    const res = await call("POST", door.path, { creds, body: await door.body(creds, door.address(host)) });
    expect(res.status, res.text).toBe(201);
    expect(await door.stored(creds)).toBe(1);
  });

  it("takes private networks only with ALLOW_PRIVATE_NETWORKS, and never the metadata address", async () => {
    const creds = await createAccount();
    const privateOne = await withPrivateNetworks(creds, door.path, await door.body(creds, door.address("10.0.0.1")));
    expect(privateOne.status).toBe(201);
    const metadata = await withPrivateNetworks(creds, door.path, await door.body(creds, door.address("169.254.169.254")));
    expect(metadata).toEqual({ status: 422, json: { message: "Errors", errors: { [door.field]: [`The ${door.field} field ${METADATA}`] } } });
    expect(await door.stored(creds)).toBe(1);
  });
});
