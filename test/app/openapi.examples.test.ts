// The docs' "Try it out", executed: every request example of /openapi.json is sent as is, with fresh
// credentials and the ids it names replaced by ones created through the API first, and gets its
// operation's documented success status. And the order list, with every query parameter at its
// documented default, finds the orders just created.
import { shippedOrder } from "../returns/support";
import { describe, expect, it } from "vitest";
import { createAccount, createOrder, unique } from "../helpers/factories";
import { ADMIN, authHeaders, call, type Credentials } from "../helpers/http";
import { httpBuildQuery, multipartOf } from "../helpers/php-form";
import { waitForLineStatus } from "../helpers/routing";
import { supplierWithRule } from "../helpers/suppliers";

type Doc = { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } };

const documentOf = async (): Promise<Doc> => (await call("GET", "/openapi.json")).json;

/** What Swagger UI puts in the body: the media type's example, or its schema's. */
function exampleOf(doc: Doc, media: any): unknown {
  if (media.example !== undefined) return media.example;
  const schema = media.schema?.$ref ? doc.components.schemas[media.schema.$ref.replace("#/components/schemas/", "")] : media.schema;
  return schema?.example;
}

/** Every (operation, media type) of the document that takes a body. */
function bodiesOf(doc: Doc): string[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).flatMap(([method, op]) => Object.keys(op.requestBody?.content ?? {}).map((type) => `${method.toUpperCase()} ${path} ${type}`)),
  );
}

function encode(type: string, body: unknown): { rawBody: BodyInit; contentType?: string } {
  if (type === "application/json") return { rawBody: JSON.stringify(body), contentType: type };
  if (type === "application/x-www-form-urlencoded") return { rawBody: httpBuildQuery(body as never), contentType: type };
  // The runtime writes the multipart boundary into the Content-Type itself.
  if (type === "multipart/form-data") return { rawBody: multipartOf(body as never) };
  return { rawBody: String(body), contentType: type };
}

describe("every request example of the OpenAPI document", () => {
  it("succeeds as is, with the ids it needs, and gets the documented status", async () => {
    const doc = await documentOf();
    const tried = new Set<string>();
    const creds = await createAccount();

    async function tryIt(
      method: string,
      docPath: string,
      type: string,
      opts: { params?: Record<string, string | number>; headers?: Record<string, string>; ids?: (example: any) => unknown } = {},
    ) {
      const op = doc.paths[docPath]?.[method.toLowerCase()];
      expect(op, `${method} ${docPath} is not in the document`).toBeDefined();
      const media = op.requestBody?.content?.[type];
      expect(media, `${method} ${docPath} takes no ${type}`).toBeDefined();
      const example = exampleOf(doc, media);
      expect(example, `${method} ${docPath} ${type} has no example: give its schema .openapi({ example })`).toBeDefined();
      const body = opts.ids ? opts.ids(structuredClone(example)) : example;
      const path = docPath.replace(/\{(\w+)\}/g, (_, name: string) => String(opts.params?.[name]));
      const { rawBody, contentType } = encode(type, body);
      const headers = { ...(opts.headers ?? authHeaders(creds)), ...(contentType ? { "content-type": contentType } : {}) };
      const res = await call(method, path, { rawBody, headers });
      const success = Object.keys(op.responses).filter((status) => status.startsWith("2"));
      expect(success, `${method} ${docPath}: one documented success`).toHaveLength(1);
      expect(res.status, `${method} ${path} (${type}) -> ${res.text.slice(0, 500)}`).toBe(Number(success[0]));
      tried.add(`${method} ${docPath} ${type}`);
      return res.json;
    }

    // The operator's API: a new account and its key.
    const account = await tryIt("POST", "/admin/v1/accounts", "application/json", { headers: ADMIN });
    await tryIt("POST", "/admin/v1/accounts/{id}/api-keys", "application/json", { headers: ADMIN, params: { id: account.id } });
    // Archiving its finished orders older than 90 days (it has none yet).
    expect(await tryIt("POST", "/admin/v1/accounts/{id}/archive", "application/json", { headers: ADMIN, params: { id: account.id } })).toEqual({ archived: 0, bytes_freed: 0, done: true });
    // Moving an account to the example's shard (1): an account pinned to shard 0 first.
    const mover = await call("POST", "/admin/v1/accounts", { headers: ADMIN, body: { name: unique("mover"), shard: 0 } });
    await tryIt("POST", "/admin/v1/accounts/{id}/move", "application/json", { headers: ADMIN, params: { id: mover.json.id } });
    // Re-sealing the shops' credentials under the current key (nothing to do: the test key sealed them).
    expect((await tryIt("POST", "/admin/v1/secrets/reseal", "application/json", { headers: ADMIN })).done).toBe(true);
    // The account's own keys.
    await tryIt("POST", "/api/v1/api-keys", "application/json");

    // Suppliers: the example's, and a manual one with a catch-all rule that the orders' lines go to.
    const supplier = await tryIt("POST", "/api/v1/suppliers", "application/json");
    await tryIt("PATCH", "/api/v1/suppliers/{id}", "application/json", { params: { id: supplier.id } });
    await tryIt("POST", "/api/v1/suppliers/{id}/rotate-secret", "application/json", { params: { id: supplier.id } });
    const { supplier: manual } = await supplierWithRule(creds, { channel: "manual" });
    const key = await tryIt("POST", "/api/v1/suppliers/{id}/keys", "application/json", { params: { id: manual.id } });

    // Routing rules, their order, and an explanation of the example order.
    const rule = await tryIt("POST", "/api/v1/routing-rules", "application/json");
    await tryIt("PATCH", "/api/v1/routing-rules/{id}", "application/json", { params: { id: rule.id } });
    const rules = (await call("GET", "/api/v1/routing-rules", { creds })).json.data.map((r: { id: number }) => r.id);
    expect(rules).toHaveLength(2);
    await tryIt("POST", "/api/v1/routing-rules/reorder", "application/json", { ids: () => ({ ids: [...rules].reverse() }) });
    const explained = await tryIt("POST", "/api/v1/routing-rules/explain", "application/json");
    expect(explained.outcome).toBe("would_route");

    // The example order, as JSON and as the two form types a PHP shop posts.
    const created = await tryIt("POST", "/api/v1/orders", "application/json");
    expect(created.message).toBe("Order created");
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data"]) {
      expect(await tryIt("POST", "/api/v1/orders", type)).toEqual({ message: "Order already exists", reference: created.reference });
    }
    const reference = String(created.reference);
    const order = await waitForLineStatus(creds, reference, "ruled");
    expect(order.shipping_address.country).toBe("NL");
    expect(order.shipping.delivery_date).toBe("2026-12-15");
    expect((await tryIt("POST", "/api/v1/orders/{reference}/block", "application/json", { params: { reference } })).blocked).toBe(true);
    expect((await tryIt("POST", "/api/v1/orders/{reference}/unblock", "application/json", { params: { reference } })).blocked).toBe(false);
    const lineId = order.order_lines[0].id;
    const completed = await tryIt("POST", "/api/v1/orders/{reference}/complete", "application/json", {
      params: { reference },
      ids: () => ({ line_ids: [lineId] }),
    });
    expect(completed.order_lines[0].current_status).toBe("completed");

    // The supplier answers a line of another order with its key.
    const other = await createOrder(creds);
    const otherLine = (await waitForLineStatus(creds, other.reference, "ruled")).order_lines[0].id;
    const answered = await tryIt("POST", "/api/v1/supplier/answers", "application/json", {
      headers: { authorization: `Bearer ${key.key}` },
      ids: (example: any) => ({ answers: example.answers.map((a: object) => ({ ...a, line_id: otherLine })) }),
    });
    expect(answered.results).toEqual([{ line_id: otherLine, current_status: "completed" }]);
    // The shop cancels one of the example order's line completed by hand (its supplier has it: a
    // request), and records the supplier's confirmation: the 1 is split off as a skipped line.
    const cancelled = await tryIt("POST", "/api/v1/orders/{reference}/cancel", "application/json", {
      params: { reference },
      ids: (example: any) => ({ ...example, lines: [{ line_id: lineId, quantity: 1 }] }),
    });
    expect(cancelled.order_lines[0].cancellation).toMatchObject({ quantity: 1 });
    const recorded = await tryIt("POST", "/api/v1/orders/{reference}/cancellations/answers", "application/json", {
      params: { reference },
      ids: (example: any) => ({ answers: example.answers.map((a: object) => ({ ...a, line_id: lineId })) }),
    });
    expect(recorded.order_lines.map((l: { current_status: string; split_from_line_id: number | null }) => [l.current_status, l.split_from_line_id])).toEqual([
      ["completed", null],
      ["skipped", lineId],
    ]);
    expect(await tryIt("PATCH", "/api/v1/settings", "application/json")).toEqual({ reroute_enabled: true, reroute_max_attempts: 3, currency: "EUR", archive_after_days: 90 });
    // A line its supplier declined, sent to a supplier by hand (the one that had it: any active one will do).
    const stuck = await createOrder(creds);
    const stuckLine = (await waitForLineStatus(creds, stuck.reference, "ruled")).order_lines[0].id;
    await call("POST", "/api/v1/supplier/answers", { headers: { authorization: `Bearer ${key.key}` }, body: { answers: [{ line_id: stuckLine, action: "decline", reason: "out of stock" }] } });
    const assigned = await tryIt("POST", "/api/v1/orders/{reference}/lines/{line_id}/assign", "application/json", {
      params: { reference: stuck.reference, line_id: stuckLine },
      ids: () => ({ supplier_id: manual.id }),
    });
    expect(assigned.order_lines[0]).toMatchObject({ id: stuckLine, current_status: "ruled", matched_supplier: { id: manual.id } });
    // A line its supplier confirmed 2 of 3 of (re-routing off, so the rest waits for a person): its rest cancelled.
    await call("PATCH", "/api/v1/settings", { creds, body: { reroute_enabled: false } });
    const partly = await createOrder(creds, { products: [{ external_id: "mug-3", name: "Three mugs", quantity: 3, price: 5 }] });
    const partLine = (await waitForLineStatus(creds, partly.reference, "ruled")).order_lines[0].id;
    const partial = await call("POST", "/api/v1/supplier/answers", { headers: { authorization: `Bearer ${key.key}` }, body: { answers: [{ line_id: partLine, action: "partial", quantity: 2 }] } });
    expect(partial.status, partial.text).toBe(200);
    const restCancelled = await tryIt("POST", "/api/v1/orders/{reference}/lines/{line_id}/cancel-rest", "application/json", { params: { reference: partly.reference, line_id: partLine } });
    expect(restCancelled.order_lines.map((l: { current_status: string; quantity: number }) => [l.current_status, l.quantity])).toEqual([
      ["partially_completed", 2],
      ["skipped", 1],
    ]);
    // The example order, and another, blocked at once.
    const bulk = await tryIt("POST", "/api/v1/orders/bulk", "application/json", { ids: (example: any) => ({ ...example, references: [reference, other.reference] }) });
    expect(bulk.results).toEqual([reference, other.reference].map((ref) => ({ reference: ref, outcome: "blocked", message: "Blocked" })));

    // A feed of the example supplier, changed, then filled with each file type's example.
    const feed = await tryIt("POST", "/api/v1/product-feeds", "application/json", { ids: (example: any) => ({ ...example, supplier_id: supplier.id }) });
    await tryIt("PATCH", "/api/v1/product-feeds/{id}", "application/json", { params: { id: feed.id } });
    for (const type of ["text/csv", "application/json", "application/xml"]) {
      const imported = await tryIt("PUT", "/api/v1/product-feeds/{id}/products", type, { params: { id: feed.id } });
      expect(imported, type).toMatchObject({ status: "succeeded", rejected: 0 });
    }

    // Webhook subscriptions.
    const webhook = await tryIt("POST", "/api/v1/webhooks", "application/json");
    await tryIt("PATCH", "/api/v1/webhooks/{id}", "application/json", { params: { id: webhook.id } });
    // A shop connection: the example's, then its PATCH (it goes live).
    const connection = await tryIt("POST", "/api/v1/shop-connections", "application/json");
    expect(connection.settings.mode).toBe("dry_run");
    expect((await tryIt("PATCH", "/api/v1/shop-connections/{id}", "application/json", { params: { id: connection.id } })).settings.mode).toBe("live");
    // Its stock sync, once enabled: turning it on queued a full sync of its own (trigger settings, issue 31), which the request answers.
    await call("PATCH", `/api/v1/shop-connections/${connection.id}`, { creds, body: { settings: { stock_sync: { enabled: true } } } });
    expect(await tryIt("POST", "/api/v1/shop-connections/{id}/stock-syncs", "application/json", { params: { id: connection.id } })).toMatchObject({ trigger: "settings", full: true });
    expect(await tryIt("POST", "/api/v1/shop-connections/{id}/stock-syncs/preview", "application/json", { params: { id: connection.id } })).toMatchObject({ full: true });

    // Returns (docs/returns.md): a shipped mug back to its supplier, through every body of the flow.
    const r = await shippedOrder();
    const shop = authHeaders(r.creds);
    await tryIt("PUT", "/api/v1/suppliers/{id}/returns-settings", "application/json", { headers: shop, params: { id: r.plates.id } });
    const [ret] = (
      await tryIt("POST", "/api/v1/orders/{reference}/returns", "application/json", {
        headers: shop,
        params: { reference: r.reference },
        ids: (example: any) => ({ ...example, lines: [{ ...example.lines[0], line_id: r.mugs }] }),
      })
    ).data;
    expect((await tryIt("POST", "/api/v1/supplier/returns/{id}/answer", "application/json", { headers: { authorization: `Bearer ${r.cups.key}` }, params: { id: ret.id } })).status).toBe("authorised");
    expect((await tryIt("POST", "/api/v1/returns/{id}/tracking", "application/json", { headers: shop, params: { id: ret.id } })).status).toBe("in_transit");
    expect((await tryIt("POST", "/api/v1/returns/{id}/cancel", "application/json", { headers: shop, params: { id: ret.id } })).status).toBe("cancelled");

    // Every body the document describes was tried: a new endpoint with a body joins this list.
    expect([...tried].sort()).toEqual(bodiesOf(doc).sort());
  });
});

describe("GET /api/v1/orders with every query parameter at its documented default", () => {
  it("finds the orders the test created, as the list without parameters does", async () => {
    const doc = await documentOf();
    const creds: Credentials = await createAccount();
    const refs = [];
    for (let i = 0; i < 3; i++) refs.push((await createOrder(creds, { external_id: unique("default") })).reference);
    await createOrder(creds, { test: true });

    const params = doc.paths["/api/v1/orders"].get.parameters as { name: string; in: string; schema: { default?: unknown } }[];
    const defaults = params.filter((p) => p.in === "query" && p.schema.default !== undefined).map((p) => [p.name, String(p.schema.default)]);
    expect(defaults.length).toBeGreaterThan(0);
    const withDefaults = await call("GET", `/api/v1/orders?${new URLSearchParams(defaults)}`, { creds });
    const plain = await call("GET", "/api/v1/orders", { creds });
    expect(withDefaults.status, withDefaults.text).toBe(200);
    expect(withDefaults.json.data.map((o: { reference: string }) => o.reference)).toEqual([...refs].reverse());
    expect(withDefaults.json.data).toEqual(plain.json.data);
    expect(withDefaults.json.meta.total).toBe(3);
  });
});
