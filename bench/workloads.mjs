// The benchmark's workloads: one request shape each, driven at a fixed concurrency. Filter values
// are relative to the seeded data (seed.mjs: a year of orders ending at ANCHOR).
import { ANCHOR, iso } from "./seed.mjs";

const DAY = 86_400_000;

/** A realistic 3-line order, as the WooCommerce plugin sends it. */
export function orderBody(externalId) {
  return {
    external_id: externalId,
    source: "WooCommerce",
    total: "107.35",
    shipping_cost: "4.95",
    shipping: { name: "PostNL", description: "Standard delivery", note: "", delivery_date: "30-11-2026" },
    email: "jan@example.com",
    shipping_address: {
      first_name: "Jan",
      last_name: "Jansen",
      company_name: "",
      address1: "Damrak 1",
      address2: "",
      postcode: "1012LG",
      city: "Amsterdam",
      state: "",
      country: "Netherlands",
      phone: "0612345678",
    },
    products: [
      { external_id: 101, name: "Blue mug", ean13: "0012345678905", reference: "SKU-1-1", quantity: 2, price: "12.50", brand: "", supplier: null },
      { external_id: 102, name: "Teapot", ean13: "4006381333931", reference: "SKU-1-2", quantity: 1, price: "45.00", purchase_price: "22.00" },
      { external_id: 103, name: "Tea towel", quantity: 4, price: "8.10", category: "Kitchen", custom: { color: "red" } },
    ],
  };
}

/**
 * Every workload: name, kind (floor | create | repeat | list | single | products), and either a fixed
 * path or a request() that autocannon's setupRequest calls for each request.
 * `check(status, json)` tells whether a sampled answer is the one the workload means to measure.
 */
export function workloads(marker, runId, session = { cookies: [], turn: 0 }) {
  const { sample, suppliers } = marker;
  const ok200 = (status) => status === 200;
  const list = (name, query, extra = {}) => ({
    name: `list ${name}`,
    kind: "list",
    path: `/api/v1/orders${query ? `?${query}` : ""}`,
    check: (status, json) => status === 200 && Array.isArray(json?.data),
    ...extra,
  });
  let created = 0;
  let repeated = 0;
  let fetched = 0;
  let shown = 0;
  let searched = 0;
  // The shop console's pages, signed in (run.mjs signs in once per key of the account; the pages rotate over those sessions): each against the API
  // call it shows, whose D1 statements and round trips it must not exceed (issue 12: no query per
  // row), but for `more`: the statements of what the page shows beyond the API call, each named,
  // read in the API call's round trips (docs/console.md, test/console/pages.budget.test.ts).
  const page = (extra) => ({
    kind: "console",
    headers: () => ({ cookie: session.cookies[session.turn++ % session.cookies.length], accept: "text/html" }),
    check: (status, _json, text) => status === 200 && /<table/.test(text ?? ""),
    ...extra,
  });
  return [
    { name: "floor (GET /api/v1)", kind: "floor", path: "/api/v1", check: (s, j) => s === 200 && typeof j?.id === "number" },
    list("default", ""),
    list("external_id", "external_id=1234"),
    list("date_from", `date_from=${iso(ANCHOR - 30 * DAY)}`),
    list("date_to", `date_to=${iso(ANCHOR - 335 * DAY)}`),
    list("completed_since", `completed_since=${iso(ANCHOR - 7 * DAY)}`),
    list("statuses", "statuses=failed,declined"),
    list("supplier_ids", `supplier_ids=${suppliers[2]},${suppliers[6]}`),
    list("total_min", "total_min=4000"),
    list("total_max", "total_max=200"),
    list("blocked", "blocked=true"),
    list("include_test", "include_test=true"),
    list("source", "source=woocommerce"),
    // q (issue 22): one order by its reference; a last name many orders share (counted from one counter, the page a walk of its key).
    list("q reference", "", { request: () => ({ method: "GET", path: `/api/v1/orders?q=${sample.references[searched++ % sample.references.length]}` }), check: (s, j) => s === 200 && j?.meta?.total === 1 }),
    list("q last name", "q=jansen"),
    // q by prefix (issue 31): the start of a last name and of a city, each a key of its own, so the same walk of one key's range.
    list("q prefix", "q=jans"),
    list("q city prefix", "q=utrec"),
    list("sort=-total", "sort=-total"),
    list("sort=created_at", "sort=created_at"),
    list("per_page=50", "per_page=50"),
    list("per_page=100", "per_page=100"),
    {
      name: "single order",
      kind: "single",
      request: () => ({ method: "GET", path: `/api/v1/orders/${sample.references[fetched++ % sample.references.length]}` }),
      check: (status, json) => status === 200 && Array.isArray(json?.order_lines?.[0]?.logs),
    },
    page({ name: "console orders page", path: "/console/orders", shows: "list default" }),
    page({
      name: "console order page",
      shows: "single order",
      more: ["the order's dispatches", "the events sent to the shop", "what was written into the shop (GET /api/v1/orders/{reference}/shop-sync)", "its returns (GET /api/v1/orders/{reference}/returns)"],
      request: () => ({ method: "GET", path: `/console/orders/${sample.references[shown++ % sample.references.length]}` }),
    }),
    { name: "products page 1", kind: "products", path: "/api/v1/products?page=1", check: (s, j) => s === 200 && j?.data?.length === 100 },
    // The last page (50,000 products, 100 a page).
    { name: "products page 500", kind: "products", path: "/api/v1/products?page=500", check: (s, j) => s === 200 && j?.data?.length === 100 && j.next_page_url === null },
    {
      name: "create order (3 lines)",
      kind: "create",
      request: () => ({ method: "POST", path: "/api/v1/orders", body: JSON.stringify(orderBody(`bench-${runId}-${created++}`)) }),
      check: (status, json) => status === 200 && json?.message === "Order created",
    },
    {
      name: "repeat existing order",
      kind: "repeat",
      request: () => ({
        method: "POST",
        path: "/api/v1/orders",
        body: JSON.stringify(orderBody(sample.externalIds[repeated++ % sample.externalIds.length])),
      }),
      check: (status, json) => status === 200 && json?.message === "Order already exists",
    },
  ].map((w) => ({ check: ok200, ...w }));
}
