// A failed feed pull says what failed, over the real network: a supplier's server faked at the
// network edge (test/helpers/fake-remote.global.ts), a port nothing listens on, a host name that
// does not resolve. The import is recorded as failed with that reason, and no product changes.
import { describe, expect, inject, it } from "vitest";
import { createFeed, feedCatalogue, pushFile } from "../helpers/catalogue";
import { createAccount, unique } from "../helpers/factories";
import { call } from "../helpers/http";

const remote = new URL(inject("fakeRemoteUrl"));
const closed = new URL(inject("closedPortUrl"));
const at = (scenario: string) => `${remote.origin}/${scenario}/${unique("feed")}.csv`;

async function pull(url: string, format = "csv") {
  const creds = await createAccount();
  const { feed } = await createFeed(creds, { url, format });
  if (format === "csv") await pushFile(creds, feed.id, "sku,name\nKEEP,Kept as it was\n", "text/csv");
  const before = await feedCatalogue(creds, feed.id);
  const res = await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
  const history = await call("GET", `/api/v1/product-feeds/${feed.id}/imports`, { creds });
  return { res, record: history.json.data[0], before, after: await feedCatalogue(creds, feed.id) };
}

describe("a feed pull that fails says what failed", () => {
  const cases: [string, () => string, string, string?][] = [
    ["a host name that does not resolve", () => "http://feed.invalid/stock.csv", "The feed URL could not be fetched: the host name feed.invalid does not resolve (DNS); nothing was changed."],
    [
      "a port nothing listens on",
      () => `${closed.origin}/stock.csv`,
      `The feed URL could not be fetched: the connection to ${closed.host} was refused: nothing listens on port ${closed.port} there; nothing was changed.`,
    ],
    [
      "a server that resets the connection",
      () => at("reset"),
      `The feed URL could not be fetched: ${remote.host} accepted the connection, then closed or reset it without an HTTP answer ` +
        `(is ${remote.port} its web server's port?); nothing was changed.`,
    ],
    [
      "a port that does not speak HTTP",
      () => at("not-http"),
      `The feed URL could not be fetched: ${remote.host} accepted the connection, then closed or reset it without an HTTP answer ` +
        `(is ${remote.port} its web server's port?); nothing was changed.`,
    ],
    [
      "https to a server without TLS",
      () => at("ok").replace("http:", "https:"),
      `The feed URL could not be fetched: ${remote.host} accepted the connection, but the TLS handshake or the HTTP exchange failed ` +
        `(is it https on port ${remote.port}, with a valid certificate?); nothing was changed.`,
    ],
    ["a server that answers too late", () => at("slow"), `The feed URL could not be fetched: ${remote.host} did not answer within 1.5 s; nothing was changed.`],
    [
      "an HTTP error status",
      () => at("status-401"),
      "The feed URL answered HTTP 401 Unauthorized; nothing was changed. Check the feed's credentials (its user and password, sent as Basic auth).",
    ],
    [
      "a connection dropped halfway through the file",
      () => at("truncated"),
      `The file could not be read to the end: the connection to ${remote.host} dropped after 17 bytes, before the whole file arrived ` +
        "(Network connection lost.); nothing was changed.",
    ],
    [
      "a sign-in page instead of the file",
      () => at("html"),
      "The feed URL answered an HTML page (text/html; charset=utf-8), not a CSV file: check that the url points at the file itself, " +
        "not at a sign-in or download page; nothing was changed.",
    ],
    [
      "a file of another format than the feed's",
      () => at("json"),
      "No column of the file maps to a product field other than sku, so its products would have no name, price or stock; nothing was changed. " +
        "Expected columns: 'sku', 'ean13', 'name', 'purchase_price', 'stock_quantity', 'active'; or set the feed's mapping to the file's own names. " +
        "Columns found: '{\"data\":[]}'. The server sent it as application/json, " +
        "a JSON file, where the feed's format is csv: check the feed's url and format.",
    ],
  ];

  for (const [what, url, error] of cases) {
    it(what, async () => {
      const target = url();
      const { res, record, before, after } = await pull(target);
      expect(res.status, res.text).toBe(502);
      expect(res.json).toEqual({ message: "Bad Gateway", error, import: record });
      expect(record).toMatchObject({ status: "failed", source: target, created: 0, updated: 0, deactivated: 0, error });
      expect(after).toEqual(before);
    });
  }

  it("imports a file served over the same network", async () => {
    const { res, after } = await pull(at("csv"));
    expect(res.status, res.text).toBe(201);
    expect(res.json).toMatchObject({ status: "succeeded", rows_read: 2, created: 2, deactivated: 1, error: null });
    expect(Object.fromEntries(Object.entries(after).map(([sku, p]) => [sku, p.active]))).toEqual({ KEEP: 0, A: 1, B: 1 });
  });
});
