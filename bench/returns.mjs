// Returns in the pipeline phase (issue 35): the shop's return request and each of the supplier's
// answers (authorise, receive, credit), measured beside the supplier answer's workloads and held to
// their budget: 15 D1 statements in 4 round trips (the decline request's, auth included).
//
// No set-up of their own: they return the orders the "ship + write-back" workload has just shipped
// (its creates, the pipeline's routing and the pull supplier's ship answers are the cheapest way the
// bench makes shipped orders). One return per order, of its three lines (one supplier's: one return),
// then each answer once per return, in order.

/** The supplier answer's budget (test/returns/returns.budget.test.ts holds the same numbers). */
export const RETURN_BUDGET = { queries: 15, roundTrips: 4 };

/**
 * The four workloads. `shipped()`: the external ids of the orders shipped before them; `headers()`:
 * the account's; `supplierKey`: the pull supplier's, which shipped them and answers their returns.
 */
export function returnWorkloads({ amount, shipped, headers, supplierKey }) {
  const supplier = () => ({ authorization: `Bearer ${supplierKey}`, "content-type": "application/json", accept: "application/json" });
  let orders = []; // { reference, lines: [{ id, quantity }] }
  const byStatus = { requested: [], authorised: [], received: [] }; // returns waiting for the next answer
  const turns = { request: 0, authorise: 0, receive: 0, credit: 0 };
  const next = (list, name) => {
    const item = list[turns[name]++];
    if (!item) throw new Error(`return ${name}: ran out of returns (${list.length} prepared)`);
    return item;
  };
  // The account's returns in one state, read back through the API (the autocannon requests' answers are not kept).
  const returnsIn = (status) => async (worker) => {
    const found = [];
    for (let page = 1; ; page++) {
      const res = await fetch(`${worker.base}/api/v1/returns?status=${status}&per_page=100&page=${page}`, { headers: headers() });
      const json = await res.json();
      if (res.status !== 200) throw new Error(`returns set-up: list answered ${res.status} ${JSON.stringify(json).slice(0, 300)}`);
      found.push(...json.data);
      if (json.data.length < 100) break;
    }
    byStatus[status] = found.reverse(); // oldest first
  };
  const answer = (name, status, body, now) => ({
    name: `return ${name} (supplier API)`,
    kind: "return",
    amount,
    prepare: returnsIn(status),
    headers: supplier,
    request: () => {
      const r = next(byStatus[status], name);
      return { method: "POST", path: `/api/v1/supplier/returns/${r.id}/answer`, body: JSON.stringify(body(r)) };
    },
    check: (code, json) => code === 200 && json?.status === now,
  });
  return [
    {
      name: "return request (3 lines, one supplier)",
      kind: "return",
      amount,
      prepare: async (worker) => {
        orders = [];
        for (const externalId of shipped()) {
          const res = await fetch(`${worker.base}/api/v1/orders?external_id=${encodeURIComponent(externalId)}`, { headers: headers() });
          const json = await res.json();
          const order = json.data?.[0];
          if (!order) throw new Error(`returns set-up: order ${externalId} not found (${res.status})`);
          orders.push({ reference: order.reference, lines: order.order_lines.filter((l) => l.current_status === "completed").map((l) => ({ id: l.id, quantity: l.quantity })) });
          if (orders.at(-1).lines.length === 0) throw new Error(`returns set-up: order ${externalId} has no shipped line`);
        }
      },
      request: () => {
        const o = next(orders, "request");
        const lines = o.lines.map((l) => ({ line_id: l.id, quantity: 1, reason: "Changed mind" }));
        return { method: "POST", path: `/api/v1/orders/${o.reference}/returns`, body: JSON.stringify({ lines, note: "bench" }) };
      },
      check: (code, json) => code === 201 && json?.data?.length === 1 && json.data[0].status === "requested",
    },
    answer("authorise", "requested", (r) => ({ action: "authorise", rma: `RMA-B${r.id}`, return_address: "Dock 1, Rotterdam" }), "authorised"),
    answer("receive", "authorised", (r) => ({ action: "receive", lines: r.lines.map((l) => ({ line_id: l.line_id, quantity: l.quantity, condition: "new" })) }), "received"),
    answer("credit", "received", () => ({ action: "credit", amount: 25.5, currency: "EUR" }), "credited"),
  ];
}

/** The target column of a return workload: the supplier answer's budget. */
export function returnTarget(metrics) {
  return {
    text: `≤ ${RETURN_BUDGET.queries} statements in ≤ ${RETURN_BUDGET.roundTrips} round trips (a supplier answer's)`,
    ok: metrics.queries <= RETURN_BUDGET.queries && metrics.roundTrips <= RETURN_BUDGET.roundTrips,
  };
}
