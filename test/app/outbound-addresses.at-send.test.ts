// Where a connection may point, checked again when it is used: rows stored before the policy (or
// written around the API) are refused unsent, in words; a feed server's redirect is checked like
// the url itself; a TCP socket whose reported peer is not public is closed before a byte is sent.
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import { postWebhook } from "../../src/forwarding/channels/webhook";
import { createFtpConnector } from "../../src/lib/file-transfer/ftp";
import { FileTransferError } from "../../src/lib/file-transfer/transfer";
import { ShopError, ShopHttp } from "../../src/shops/platforms/http";
import { createFeed } from "../helpers/catalogue";
import { createAccount, createOrder, unique } from "../helpers/factories";
import { settledDeliveries, subscribe } from "../events/support";
import { received } from "../helpers/fake-remote";
import { call } from "../helpers/http";

const remote = new URL(inject("fakeRemoteUrl"));
const METADATA = "points to 169.254.169.254, a cloud metadata address, which is never reached";

describe("outbound addresses at send time", () => {
  it("a feed whose server redirects to the metadata address is refused at the redirect; a redirect to a reachable server is followed", async () => {
    const creds = await createAccount();
    const pull = async (to: string) => {
      const { feed } = await createFeed(creds, { url: `${remote.origin}/redirect/${unique("r")}?to=${encodeURIComponent(to)}`, format: "csv" });
      await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
      return (await call("GET", `/api/v1/product-feeds/${feed.id}/imports`, { creds })).json.data[0];
    };
    const refused = await pull("http://169.254.169.254/latest/meta-data/");
    expect({ status: refused.status, error: refused.error }).toEqual({
      status: "failed",
      error: `The feed URL redirected to 169.254.169.254, which ${METADATA}; nothing was changed.`,
    });
    const followed = await pull(`${remote.origin}/csv/${unique("f")}.csv`);
    expect({ status: followed.status, error: followed.error }).toEqual({ status: "succeeded", error: null });
  });

  it("a feed stored with a refused url is not fetched: its import fails in words", async () => {
    const creds = await createAccount();
    const target = `${remote.origin}/csv/${unique("stored")}.csv`;
    const { feed } = await createFeed(creds, { url: target, format: "csv" });
    // Written around the API, as a row stored before the policy would be.
    await env.DB.prepare("UPDATE product_feeds SET url = ? WHERE id = ?").bind("http://10.0.0.1/stock.csv", feed.id).run();
    await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
    const record = (await call("GET", `/api/v1/product-feeds/${feed.id}/imports`, { creds })).json.data[0];
    expect(record.status).toBe("failed");
    expect(record.error).toMatch(/^The feed URL points to 10\.0\.0\.1, a private network address .*; nothing was changed\.$/);
  });

  it("a supplier's stored file server on the metadata address: the settings' test says so and connects nowhere", async () => {
    const creds = await createAccount();
    const created = await call("POST", "/api/v1/suppliers", {
      creds,
      body: { name: "Files", channel: "file", file_transfer: { protocol: "ftp", host: "127.0.0.1", port: 2121, username: "orders", password: "secret-1" } },
    });
    expect(created.status).toBe(201);
    for (const host of ["169.254.169.254", "2852039166"]) {
      await env.DB.prepare("UPDATE suppliers SET file_transfer = json_set(file_transfer, '$.host', ?) WHERE id = ?").bind(host, created.json.id).run();
      const res = await call("POST", `/api/v1/suppliers/${created.json.id}/file-transfer/test`, { creds });
      expect(res.status).toBe(200);
      expect(res.json.ok).toBe(false);
      const shown = host === "2852039166" ? "2852039166 (that is 169.254.169.254)" : host;
      expect(res.json.checks[0]).toEqual({ name: "connect", ok: false, message: `address: not connecting to ${host}: it points to ${shown}, a cloud metadata address, which is never reached; nothing was sent` });
    }
  });

  it("a TCP socket whose reported peer is a private address is refused before a byte is sent", async () => {
    const written: Uint8Array[] = [];
    // A name that resolved to a private address, as a runtime reporting the peer it reached would say.
    const opener = () =>
      ({
        opened: Promise.resolve({ remoteAddress: "10.1.2.3:21" }),
        readable: new ReadableStream(),
        writable: new WritableStream({ write: (chunk: Uint8Array) => void written.push(chunk) }),
        closed: new Promise(() => undefined),
        close: async () => undefined,
        startTls: () => {
          throw new Error("no TLS here");
        },
      }) as unknown as Socket;
    const error = await createFtpConnector(opener)({ protocol: "ftp", host: "files.example.com", port: 21, username: "u", password: "p", timeoutMs: 2000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FileTransferError);
    expect((error as FileTransferError).kind).toBe("address");
    expect((error as FileTransferError).message).toMatch(/^not connecting to files\.example\.com: it points to 10\.1\.2\.3, a private network address .*; nothing was sent$/);
    expect(written).toEqual([]);
  });

  it("a supplier webhook or a shop connection stored with a refused address is not sent to, and not retried", async () => {
    const target = `${remote.origin}/ok/${unique("hook")}`;
    const attempt = await postWebhook("https://169.254.169.254/orders", ["s3cret-s3cret-s3cret"], { id: "doc-1" }, 1000);
    expect(attempt).toEqual({ outcome: "rejected", detail: `not sent: the webhook_url ${METADATA}`, failure: "network", response: `not sent: the webhook_url ${METADATA}` });
    // The same call to a reachable address goes out (loopback, the fake remote).
    expect((await postWebhook(target, ["s3cret-s3cret-s3cret"], { id: "doc-2" }, 1000)).outcome).toBe("delivered");
    expect(await received(target)).toHaveLength(1);

    const shop = new ShopHttp({ baseUrl: "https://10.0.0.1", timeoutMs: 1000, dryRun: false, secrets: [] });
    const error = await shop.request({ path: "/wp-json/wc/v3/orders/1" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ShopError);
    expect({ kind: (error as ShopError).kind, retryable: (error as ShopError).retryable }).toEqual({ kind: "address", retryable: false });
    expect(shop.calls).toEqual([
      {
        method: "GET",
        path: "/wp-json/wc/v3/orders/1",
        sent: null,
        status: null,
        answer: expect.stringMatching(/^Not sent: the connection's base_url points to 10\.0\.0\.1, a private network address/),
        durationMs: 0,
        dryRun: false,
      },
    ]);
  });

  it("an event subscription stored with a refused url: its delivery fails at once, after one attempt that sent nothing", async () => {
    const creds = await createAccount();
    const hook = await subscribe(creds, "ok", ["order.created"]);
    await env.DB.prepare("UPDATE webhook_subscriptions SET url = ? WHERE id = ?").bind("https://[fd00:ec2::254]/hooks", hook.id).run();
    await createOrder(creds);
    const [delivery] = await settledDeliveries(creds, hook.id, 1);
    const error = "Not sent: the url points to [fd00:ec2::254], a cloud metadata address, which is never reached";
    expect(delivery).toMatchObject({ status: "failed", next_attempt_at: null, last_status_code: null, last_error: error });
    expect(delivery.attempts.map((a: { status_code: number | null; error: string }) => [a.status_code, a.error])).toEqual([[null, error]]);
    expect(await received(hook.url)).toEqual([]);
  });
});
