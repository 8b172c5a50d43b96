// Demo data through the public API only: suppliers on three channels, routing rules, and orders
// that end in every state a line can be in (pending with its reason, ruled, completed, partially
// completed, declined, failed, skipped; blocked and test orders; a shipment with tracking); a
// catalogue feed whose import rejected a row, a webhook whose endpoint refuses its delivery, a
// second API key, a pull supplier with one order to answer and one acknowledged (its portal's
// open list and history), a cancellation request for each of the pull and the manual supplier,
// and a manual supplier with an answer deadline (its line is overdue a day later), and three returns
// of the shipped mugs (credited, authorised, requested). With `archive`
// (npm start passes the operator's archive command), two orders shipped in full are archived first.
// Used by `npm start` on first run and by the browser tests, so both show the same console.

const ORDER_STATES_TIMEOUT_MS = 30_000;

/**
 * @param {string} base the Worker's URL, e.g. http://localhost:8787
 * @param {{ accountId: number, apiKey: string }} creds
 * @param {{ archive?: () => Promise<{ archived: number }> }} [options] archive: archives the account's finished orders now
 */
export async function seedDemo(base, creds, options = {}) {
  const headers = { "api-key": creds.apiKey, "account-id": String(creds.accountId), "content-type": "application/json", accept: "application/json" };
  async function api(method, path, body, extraHeaders = {}) {
    const res = await fetch(`${base}${path}`, { method, headers: { ...headers, ...extraHeaders }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${text}`);
    return text ? JSON.parse(text) : null;
  }
  const order = (externalId, products, extra = {}) => ({
    external_id: externalId,
    source: "Demo webshop",
    total: products.reduce((sum, p) => sum + p.price * p.quantity, 0),
    email: "jan@example.com",
    shipping: { name: "PostNL", description: "Standard delivery", cost: 4.95, note: "Ring twice" },
    shipping_address: { first_name: "Jan", last_name: "Jansen", address1: "Damrak 1", postcode: "1012LG", city: "Amsterdam", country: "NL", phone: "0612345678" },
    products,
    ...extra,
  });
  const line = (id, name, category, price, quantity = 1, extra = {}) => ({ external_id: id, name, category, price, quantity, ...extra });

  // Suppliers: one handled by hand, one that fetches its orders (pull), one whose endpoint refuses.
  // Tuinhout must answer within a day: a line it leaves unanswered longer is on Needs attention.
  const garden = await api("POST", "/api/v1/suppliers", { name: "Tuinhout", code: "TH", channel: "manual", acknowledgement_deadline_hours: 24 });
  const kitchen = await api("POST", "/api/v1/suppliers", { name: "Keukenhuis", code: "KH", channel: "pull" });
  const broken = await api("POST", "/api/v1/suppliers", { name: "Lampenlab", code: "LL", channel: "webhook", webhook_url: `${base}/demo-supplier-endpoint-that-refuses` });
  const supplierKey = (await api("POST", `/api/v1/suppliers/${kitchen.id}/keys`, { name: "demo portal" })).key;

  const rule = (name, conditions, action) => api("POST", "/api/v1/routing-rules", { name, conditions, action });
  await rule("Hold big orders for review", [{ variable: "order.total", operator: "greater_than", value: 2500 }], { type: "block" });
  await rule("Gift wrap is a service", [{ variable: "line.external_id", operator: "begins_with", value: "GIFT-" }], { type: "skip" });
  await rule("Garden furniture from Tuinhout", [{ variable: "line.category", operator: "is", value: "garden" }], { type: "assign_supplier", supplier_id: garden.id });
  await rule("Kitchen from Keukenhuis", [{ variable: "line.category", operator: "is", value: "kitchen" }], { type: "assign_supplier", supplier_id: kitchen.id });
  await rule("Lamps from Lampenlab", [{ variable: "line.category", operator: "is", value: "lamps" }], { type: "assign_supplier", supplier_id: broken.id });

  const create = async (payload) => String((await api("POST", "/api/v1/orders", payload)).reference);
  if (options.archive) await archivedOrders(api, create, order, line, supplierKey, options.archive);
  const refs = {
    ruled: await create(order("DEMO-1001", [line("CHAIR-1", "Garden chair", "garden", 79.5, 2), line("GIFT-WRAP", "Gift wrap", "service", 2.5)])),
    completed: await create(order("DEMO-1002", [line("TABLE-1", "Garden table", "garden", 349)])),
    answered: await create(
      order("DEMO-1003", [line("MUG-1", "Blue mug", "kitchen", 12.5, 4), line("PAN-1", "Frying pan", "kitchen", 39.95), line("KNIFE-1", "Chef's knife", "kitchen", 89, 3)]),
    ),
    pending: await create(order("DEMO-1004", [line("RUG-1", "Wool rug", "textile", 199, 1, { supplier: "Tapijtfabriek" })])),
    blocked: await create(order("DEMO-1005", [line("LOUNGE-1", "Lounge set", "garden", 2999)])),
    failed: await create(order("DEMO-1006", [line("LAMP-1", "Floor lamp", "lamps", 149)])),
    test: await create(order("DEMO-1007", [line("CHAIR-2", "Folding chair", "garden", 29)], { test: true })),
  };

  // Wait for the pipeline (matching and sending run after the answer, through the queue).
  const lines = async (ref) => (await api("GET", `/api/v1/orders/${ref}`)).order_lines;
  async function until(ref, done) {
    const deadline = Date.now() + ORDER_STATES_TIMEOUT_MS;
    for (;;) {
      const current = await lines(ref);
      if (done(current)) return current;
      if (Date.now() > deadline) throw new Error(`order ${ref} did not reach the expected states: ${current.map((l) => l.current_status).join(", ")}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const dispatched = (ls) => ls.every((l) => l.current_status !== "pending");
  await until(refs.ruled, dispatched);
  await until(refs.completed, dispatched);
  await api("POST", `/api/v1/orders/${refs.completed}/complete`, {});
  const answered = await until(refs.answered, dispatched);
  await until(refs.failed, (ls) => ls[0].current_status === "failed");
  await until(refs.test, (ls) => ls[0].current_status === "completed");
  await until(refs.pending, (ls) => ls.length > 0);

  // The kitchen supplier answers in the supplier API: one shipped with tracking, one declined, one in part.
  await api(
    "POST",
    "/api/v1/supplier/answers",
    {
      answers: [
        { line_id: answered[0].id, action: "ship", quantity: 4, carrier: "PostNL", tracking_number: "3SDEMO1234567", tracking_url: "https://postnl.nl/tracktrace/3SDEMO1234567" },
        { line_id: answered[1].id, action: "decline", reason: "discontinued" },
        { line_id: answered[2].id, action: "partial", quantity: 2, reason: "only 2 in stock" },
      ],
    },
    { authorization: `Bearer ${supplierKey}` },
  );

  // Returns of the four mugs the kitchen supplier shipped, one mug each, through the shop's and the
  // supplier's APIs: one credited, one authorised and waiting for the parcel, one just requested
  // (the console's Returns page, the order's Returns section, Keukenhuis's credits this month).
  // Before the webhook: with no subscriber their events are not recorded, so the order's page still
  // shows no events about it (test/orders/orders.browser.test.ts).
  refs.returns = await demoReturns(api, refs.answered, answered[0].id, supplierKey);

  // A webhook of the shop whose endpoint refuses: the next order's event is a failing delivery.
  const webhook = await api("POST", "/api/v1/webhooks", { url: `${base}/demo-shop-endpoint-that-refuses`, events: ["order.created"] });

  // One more pull order, left waiting for the supplier (its portal shows it).
  refs.awaitingPickup = await create(order("DEMO-1008", [line("BOARD-1", "Cutting board", "kitchen", 24.95, 2)]));
  // The answered order is done for the supplier: answering its every line acknowledged it (its portal's history shows it).
  for (const [ref, status] of [[refs.answered, "acknowledged"], [refs.awaitingPickup, "awaiting_pickup"], [refs.ruled, "manual"]]) {
    const deadline = Date.now() + ORDER_STATES_TIMEOUT_MS;
    let dispatch;
    while ((dispatch = (await api("GET", `/api/v1/orders/${ref}/dispatches`)).data[0])?.status !== status) {
      if (Date.now() > deadline) throw new Error(`order ${ref} was not handed to its supplier (${status})`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  // The customer of the waiting orders wants one item fewer of each: the pull supplier sees the
  // request in its portal (Cancellation requests), and the manual supplier's must be carried to it
  // by the shop (Needs attention).
  const ruledLines = await lines(refs.ruled);
  await api("POST", `/api/v1/orders/${refs.ruled}/cancel`, { lines: [{ line_id: ruledLines[0].id, quantity: 1 }], reason: "customer wants one chair" });
  const pickupLines = await lines(refs.awaitingPickup);
  await api("POST", `/api/v1/orders/${refs.awaitingPickup}/cancel`, { lines: [{ line_id: pickupLines[0].id, quantity: 1 }], reason: "customer wants one board" });

  // The garden supplier's stock feed: a pushed file with one row that is rejected (no SKU).
  const feed = await api("POST", "/api/v1/product-feeds", { supplier_id: garden.id, name: "Tuinhout stock", format: "csv" });
  const upload = await fetch(`${base}/api/v1/product-feeds/${feed.id}/products`, {
    method: "PUT",
    headers: { ...headers, "content-type": "text/csv" },
    body: "sku,ean13,name,purchase_price,stock_quantity\nTH-CHAIR,8712345678906,Garden chair,39.50,24\nTH-TABLE,,Garden table,149.00,6\n,,Parasol without SKU,59.00,3\n",
  });
  if (!upload.ok) throw new Error(`feed upload: ${upload.status} ${await upload.text()}`);

  // A second API key, for the shop's plugin.
  await api("POST", "/api/v1/api-keys", { name: "webshop plugin" });

  return { supplierKey, supplierName: kitchen.name, references: refs, feedId: feed.id, webhookId: webhook.id };
}

/** Three returns of one mug each of `lineId` (shipped by the pull supplier): credited, authorised, requested; their ids. */
async function demoReturns(api, reference, lineId, supplierKey) {
  const supplier = { authorization: `Bearer ${supplierKey}` };
  const request = async (reason, note) => (await api("POST", `/api/v1/orders/${reference}/returns`, { lines: [{ line_id: lineId, quantity: 1, reason }], note })).data[0].id;
  const answer = (id, body) => api("POST", `/api/v1/supplier/returns/${id}/answer`, body, supplier);
  const credited = await request("Arrived chipped", "Customer sent a photo of the chip");
  await answer(credited, { action: "authorise", rma: "KH-RMA-1001", return_address: "Keukenhuis, Retouren, Industrieweg 4, 3542 AD Utrecht" });
  await api("POST", `/api/v1/returns/${credited}/tracking`, { tracking_number: "3SDEMORET01", carrier: "PostNL" });
  await answer(credited, { action: "receive", lines: [{ line_id: lineId, quantity: 1, condition: "damaged" }] });
  await answer(credited, { action: "credit", amount: 12.5, currency: "EUR" });
  const authorised = await request("Wrong colour", "Customer ordered blue, wants green");
  await answer(authorised, { action: "authorise", rma: "KH-RMA-1002", return_address: "Keukenhuis, Retouren, Industrieweg 4, 3542 AD Utrecht", label_url: "https://labels.example.com/KH-RMA-1002.pdf" });
  const requested = await request("No longer needed", "Within the return window");
  return { credited, authorised, requested };
}

/** Polls `check` every 250 ms until it answers something truthy (or throws after the timeout). */
async function waitFor(what, check) {
  const deadline = Date.now() + ORDER_STATES_TIMEOUT_MS;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`the demo: ${what} did not happen`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/**
 * Two orders of an earlier season, shipped in full by the pull supplier and archived (docs/archive.md):
 * the console lists them with "Live and archived", marked, and opens them read-only. Made before every
 * other demo order, so the archive run (every finished order, whatever its age) takes these two only.
 */
async function archivedOrders(api, create, order, line, supplierKey, archive) {
  const refs = [];
  for (const [id, name, price] of [["DEMO-0901", "Espresso cups", 24], ["DEMO-0902", "Teapot", 34.5]]) refs.push(await create(order(id, [line(`${id}-1`, name, "kitchen", price, 2)])));
  for (const ref of refs) {
    await waitFor(`order ${ref} awaiting pickup`, async () => (await api("GET", `/api/v1/orders/${ref}/dispatches`)).data[0]?.status === "awaiting_pickup");
    const lines = (await api("GET", `/api/v1/orders/${ref}`)).order_lines;
    const answers = lines.map((l) => ({ line_id: l.id, action: "ship", quantity: l.quantity, carrier: "PostNL", tracking_number: `3SARCHIVE${l.id}` }));
    await api("POST", "/api/v1/supplier/answers", { answers }, { authorization: `Bearer ${supplierKey}` });
  }
  // An order is finished once its events are published too (they follow the answer): archive until both are in.
  let archived = 0;
  await waitFor("the archive of DEMO-0901 and DEMO-0902", async () => (archived += (await archive()).archived) >= refs.length);
  return refs;
}
