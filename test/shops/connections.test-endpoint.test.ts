// POST /api/v1/shop-connections/{id}/test: the shop's reachability in words (DNS, refused, TLS,
// timeout), checked first by the service itself through ShopHttp; the platform's own checks after it.
import { describe, expect, it, inject } from "vitest";
import { createAccount } from "../helpers/factories";
import { call } from "../helpers/http";
import { remoteUrl } from "../helpers/fake-remote";
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
      json: { ok: false, checks: [{ name: "reachable", ok: false, message: `The connection to ${closed.host} was refused: nothing listens on port ${closed.port} there.` }] },
    });
  });

  it("says the host name does not resolve (DNS)", async () => {
    expect(await testOf("https://shop.invalid")).toEqual({
      status: 200,
      json: { ok: false, checks: [{ name: "reachable", ok: false, message: "The host name shop.invalid does not resolve (DNS)." }] },
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
            name: "reachable",
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
      json: { ok: false, checks: [{ name: "reachable", ok: false, message: `${slow.host} did not answer within 1 s.` }] },
    });
  });
});
