// Pulling a feed's URL, on demand (POST /import) and on its schedule (the cron trigger). The
// supplier's server is faked at the network edge: the Worker's own fetch() is intercepted.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import worker from "../../src/index";
import { createAccount, unique } from "../helpers/factories";
import { createFeed, feedCatalogue, feedProducts, pushFile } from "../helpers/catalogue";
import { call, type Credentials } from "../helpers/http";

const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/);

/** The suppliers' servers: URL -> what it answers. Anything else is a 404, and nothing leaves the machine. */
let served: Map<string, () => Response | Promise<Response>>;
let requests: Request[];

beforeEach(() => {
  served = new Map();
  requests = [];
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    requests.push(request);
    const answer = served.get(request.url);
    return answer ? answer() : new Response("Not Found", { status: 404, statusText: "Not Found" });
  });
});
afterEach(() => vi.restoreAllMocks());

const feedUrl = () => `https://feeds.supplier.test/${unique("catalogue")}.csv`;
const csv = (body: string, headers: Record<string, string> = {}) => () => new Response(body, { headers: { "content-type": "text/csv", ...headers } });

async function seededFeed(creds: Credentials, overrides: Record<string, unknown> = {}) {
  const url = feedUrl();
  const { feed } = await createFeed(creds, { url, ...overrides });
  await pushFile(creds, feed.id, "sku,name,purchase_price,stock_quantity\nA,Alpha,1.50,10\nB,Beta,2.50,20\n", "text/csv");
  return { feed, url, before: await feedProducts(creds, feed.id) };
}

describe("POST /api/v1/product-feeds/{id}/import", () => {
  it("pulls the url and syncs the catalogue fully: listed products upserted, the rest deactivated", async () => {
    const creds = await createAccount();
    const { feed, url } = await seededFeed(creds);
    served.set(url, csv("sku;name;purchase_price;stock_quantity\nA;Alpha;1,75;8\nC;Gamma;3,00;1\n", { "content-type": "text/csv; charset=utf-8" }));

    const res = await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
    expect(res.status).toBe(201);
    expect(res.json).toEqual({
      id: expect.any(Number),
      product_feed_id: feed.id,
      trigger: "manual",
      status: "succeeded",
      replace: true,
      source: url,
      started_at: ISO,
      finished_at: ISO,
      rows_read: 2,
      created: 1,
      updated: 1,
      unchanged: 0,
      deactivated: 1,
      rejected: 0,
      error: null,
      rejections: [],
      unmapped_columns: [],
      warnings: [],
    });
    expect(await feedCatalogue(creds, feed.id)).toEqual({
      A: { ean13: null, name: "Alpha", purchase_price: 1.75, stock_quantity: 8, active: 1 },
      B: { ean13: null, name: "Beta", purchase_price: 2.5, stock_quantity: 20, active: 0 },
      C: { ean13: null, name: "Gamma", purchase_price: 3, stock_quantity: 1, active: 1 },
    });
    expect(requests.map((r) => [r.method, r.url])).toEqual([["GET", url]]);
  });

  it("merges without deactivating when replace=false", async () => {
    const creds = await createAccount();
    const { feed, url } = await seededFeed(creds);
    served.set(url, csv("sku,name\nC,Gamma\n"));
    const res = await call("POST", `/api/v1/product-feeds/${feed.id}/import?replace=false`, { creds });
    expect(res.json).toMatchObject({ status: "succeeded", replace: false, created: 1, deactivated: 0 });
    expect(Object.values(await feedCatalogue(creds, feed.id)).map((p) => p.active)).toEqual([1, 1, 1]);
  });

  it("sends the feed's credentials as Basic auth, not in the URL", async () => {
    const creds = await createAccount();
    const plain = feedUrl();
    const { feed } = await createFeed(creds, { url: plain, credentials: { username: "shop@example", password: "s3cret" } });
    served.set(plain, csv("sku,name\nA,Alpha\n"));
    const res = await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
    expect(res.json.status).toBe("succeeded");
    expect(requests[0].url).toBe(plain);
    expect(requests[0].headers.get("authorization")).toBe(`Basic ${btoa("shop@example:s3cret")}`);
  });

  const failures: [string, () => Response | Promise<Response>, string][] = [
    ["answers 404", () => new Response("gone", { status: 404, statusText: "Not Found" }), "The feed URL answered HTTP 404 Not Found; nothing was changed. Check the url."],
    [
      "answers 500",
      () => new Response("oops", { status: 500, statusText: "Internal Server Error" }),
      "The feed URL answered HTTP 500 Internal Server Error; nothing was changed. The supplier's server is busy or failing: try again later.",
    ],
    [
      "answers 403",
      () => new Response("no", { status: 403, statusText: "Forbidden" }),
      "The feed URL answered HTTP 403 Forbidden; nothing was changed. Check the feed's credentials (its user and password, sent as Basic auth).",
    ],
    [
      "drops the connection halfway through the file",
      () => {
        const encoder = new TextEncoder();
        let sent = false;
        const body = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (!sent) {
              sent = true;
              controller.enqueue(encoder.encode("sku,name\nA,Alpha changed\nZ,Zeta\n"));
            } else controller.error(new Error("Connection reset by peer"));
          },
        });
        return new Response(body, { headers: { "content-type": "text/csv" } });
      },
      "The file could not be read to the end: the connection to feeds.supplier.test dropped after 32 bytes, before the whole file arrived " +
        "(Connection reset by peer); nothing was changed.",
    ],
    [
      "serves an HTML error page with 200",
      csv("<!DOCTYPE html><html><body>Maintenance</body></html>"),
      "The feed URL answered an HTML page (text/csv), not a CSV file: check that the url points at the file itself, not at a sign-in or " +
        "download page; nothing was changed.",
    ],
  ];

  for (const [what, answer, error] of failures) {
    it(`changes no product and records a failed import when the url ${what}`, async () => {
      const creds = await createAccount();
      const { feed, url, before } = await seededFeed(creds);
      served.set(url, answer);
      const res = await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
      expect(res.status).toBe(502);
      const record = {
        id: expect.any(Number),
        product_feed_id: feed.id,
        trigger: "manual",
        status: "failed",
        replace: true,
        source: url,
        started_at: ISO,
        finished_at: ISO,
        rows_read: expect.any(Number),
        created: 0,
        updated: 0,
        unchanged: 0,
        deactivated: 0,
        rejected: 0,
        error,
        rejections: [],
        unmapped_columns: [],
        warnings: [],
      };
      expect(res.json).toEqual({ message: "Bad Gateway", error, import: record });
      expect(await feedProducts(creds, feed.id)).toEqual(before);
      const history = await call("GET", `/api/v1/product-feeds/${feed.id}/imports`, { creds });
      expect(history.json.data[0]).toEqual(record);
    });
  }

  it("stops downloading as soon as the file is known to be unusable", async () => {
    const creds = await createAccount();
    const { feed, url, before } = await seededFeed(creds);
    let chunksSent = 0;
    let cancelled = false;
    served.set(url, () => {
      const line = new TextEncoder().encode("x,y\n".repeat(1000));
      const body = new ReadableStream<Uint8Array>({
        pull(controller) {
          // A bounded "endless" file: 10,000 chunks of 4 kB if nobody stops reading it.
          if (chunksSent++ < 10_000) controller.enqueue(chunksSent === 1 ? new TextEncoder().encode("Code;Title\n") : line);
          else controller.close();
        },
        cancel() {
          cancelled = true;
        },
      });
      return new Response(body);
    });
    const res = await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
    expect(res.status).toBe(502);
    expect(res.json.error).toBe(
      "No column of the file maps to a product field other than sku, so its products would have no name, price or stock; nothing was changed. " +
        "Expected columns: 'sku', 'ean13', 'name', 'purchase_price', 'stock_quantity', 'active'; or set the feed's mapping to the file's own names. Columns found: 'Code', 'Title'.",
    );
    expect(cancelled).toBe(true);
    expect(chunksSent).toBeLessThan(100);
    expect(await feedProducts(creds, feed.id)).toEqual(before);
  });

  it("answers 422 for a feed without a url", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    const res = await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
    expect(res.status).toBe(422);
    expect(res.json).toEqual({ message: "Errors", errors: { url: ["The feed has no url to import from."] } });
    expect(requests).toEqual([]);
  });
});

describe("the cron trigger", () => {
  async function tick(at: Date) {
    const controller = createScheduledController({ scheduledTime: at.getTime(), cron: "*/5 * * * *" });
    const ctx = createExecutionContext();
    await worker.scheduled(controller, env, ctx);
    await waitOnExecutionContext(ctx);
  }

  async function nextImportAt(feedId: number): Promise<string | null> {
    const row = await env.DB.prepare("SELECT next_import_at FROM product_feeds WHERE id = ?").bind(feedId).first<{ next_import_at: string | null }>();
    return row!.next_import_at;
  }

  it("pulls the feeds whose schedule has come, once, and moves their next pull on by the interval", async () => {
    const creds = await createAccount();
    const due = await seededFeed(creds, { schedule: "6h" });
    const failing = await seededFeed(creds, { schedule: "hourly" });
    const notYet = await seededFeed(creds, { schedule: "daily" });
    const inactive = await seededFeed(creds, { schedule: "daily", active: false });
    const unscheduled = await seededFeed(creds);
    await env.DB.prepare("UPDATE product_feeds SET next_import_at = ? WHERE id = ?").bind("2999-01-01T00:00:00.000000Z", notYet.feed.id).run();
    for (const f of [due, notYet, inactive, unscheduled]) served.set(f.url, csv("sku,name,stock_quantity\nA,Alpha,0\n"));
    served.set(failing.url, () => new Response("down", { status: 503, statusText: "Service Unavailable" }));

    const at = new Date(Date.now() + 1000);
    await tick(at);

    // The cron pulls every account's due feeds; other test files' feeds may be due too, so only this test's count.
    const ours = new Set([due, failing, notYet, inactive, unscheduled].map((f) => f.url));
    const pulled = () => requests.map((r) => r.url).filter((url) => ours.has(url));
    expect(pulled().sort()).toEqual([due.url, failing.url].sort());
    const dueImports = await call("GET", `/api/v1/product-feeds/${due.feed.id}/imports`, { creds });
    expect(dueImports.json.data[0]).toMatchObject({ trigger: "schedule", status: "succeeded", source: due.url, replace: true, updated: 1, deactivated: 1 });
    expect(await feedCatalogue(creds, due.feed.id)).toEqual({
      A: { ean13: null, name: "Alpha", purchase_price: null, stock_quantity: 0, active: 1 },
      B: { ean13: null, name: "Beta", purchase_price: 2.5, stock_quantity: 20, active: 0 },
    });
    const failedImports = await call("GET", `/api/v1/product-feeds/${failing.feed.id}/imports`, { creds });
    expect(failedImports.json.data[0]).toMatchObject({
      trigger: "schedule",
      status: "failed",
      error: "The feed URL answered HTTP 503 Service Unavailable; nothing was changed. The supplier's server is busy or failing: try again later.",
    });
    expect(await feedProducts(creds, failing.feed.id)).toEqual(failing.before);

    const isoAt = (ms: number) => new Date(ms).toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
    expect(await nextImportAt(due.feed.id)).toBe(isoAt(at.getTime() + 6 * 3600_000));
    // A failing feed waits for its next turn too, rather than being hammered every tick.
    expect(await nextImportAt(failing.feed.id)).toBe(isoAt(at.getTime() + 3600_000));
    expect(await nextImportAt(notYet.feed.id)).toBe("2999-01-01T00:00:00.000000Z");

    // The next tick finds nothing due.
    requests = [];
    await tick(new Date(at.getTime() + 5 * 60_000));
    expect(pulled()).toEqual([]);
  });

  it("closes an import whose Worker died as failed, without touching products", async () => {
    const creds = await createAccount();
    const { feed, before } = await seededFeed(creds);
    const longAgo = "2000-01-01T00:00:00.000000Z";
    const stuck = await env.DB.prepare(
      "INSERT INTO product_imports (account_id, product_feed_id, \"trigger\", status, \"replace\", source, started_at, rejections) VALUES (?, ?, 'manual', 'running', 1, 'x', ?, '[]') RETURNING id",
    )
      .bind(creds.accountId, feed.id, longAgo)
      .first<{ id: number }>();
    await env.DB.prepare("INSERT INTO product_import_rows (import_id, line, sku, name, active) VALUES (?, 2, 'A', 'Half-imported', 1)").bind(stuck!.id).run();

    await tick(new Date());

    const record = await call("GET", `/api/v1/product-feeds/${feed.id}/imports/${stuck!.id}`, { creds });
    expect(record.json).toMatchObject({ status: "failed", finished_at: ISO, error: "The import did not finish (its Worker stopped); nothing was changed." });
    const staged = await env.DB.prepare("SELECT count(*) AS n FROM product_import_rows WHERE import_id = ?").bind(stuck!.id).first();
    expect(staged).toEqual({ n: 0 });
    expect(await feedProducts(creds, feed.id)).toEqual(before);
  });
});
