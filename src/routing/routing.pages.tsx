// The console face of explain: "why this supplier" for an order's lines, from the same explain
// service as POST /api/v1/routing-rules/explain. The order page loads it into place with htmx when
// opened; without JavaScript it is a page of its own.
import { Hono } from "hono";
import type { AppEnv } from "../env";
import { Badge, LineStatusBadge } from "../ui/badge";
import { money, orDash } from "../ui/format";
import { DataTable } from "../ui/table";
import { LocalTime } from "../ui/time";
import { actorWords } from "./line-actions";
import { presentExplanation } from "./explain.present";
import { explainOrder } from "./routing.service";

export const routingPages = new Hono<AppEnv>();

type Explained = ReturnType<typeof presentExplanation>;
type ExplainedLine = Explained["lines"][number];

const OUTCOMES: Record<string, string> = {
  would_route: "Matching now would route the pending lines as below.",
  would_block: "Matching now would block the order (a block rule holds).",
  already_blocked: "The order is blocked: nothing is matched until it is unblocked. Below is what would decide each line.",
};

const show = (value: unknown) => (value === null || value === undefined || value === "" ? "(empty)" : typeof value === "string" ? value : JSON.stringify(value));

routingPages.get("/orders/:reference/explain", async (c) => {
  const reference = c.req.param("reference");
  const result = presentExplanation(await explainOrder(c.get("db"), c.get("account").id, { reference }));
  const body = <ExplainView result={result} currency={c.get("account").currency} />;
  if (c.req.header("hx-request") === "true") return c.html(body);
  return c.render(
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href="/console/orders">Orders</a> / <a href={`/console/orders/${reference}`}>{reference}</a> / <span aria-current="page">Why these suppliers</span>
      </nav>
      <h1>Why these suppliers: order {reference}</h1>
      {body}
    </>,
    { title: `Why these suppliers: order ${reference}` },
  );
});

/** `currency`: the account's, in which the catalogue's prices are. */
export function ExplainView({ result, currency }: { result: Explained; currency: string }) {
  return (
    <div class="explain-result">
      <p>{OUTCOMES[result.outcome] ?? result.outcome}</p>
      {result.lines.map((line) => (
        <ExplainLine line={line} currency={currency} />
      ))}
    </div>
  );
}

function ExplainLine({ line, currency }: { line: ExplainedLine; currency: string }) {
  const d = line.decision;
  return (
    <article class="explain-line">
      <header>
        <h3>
          Line {line.position + 1}: {line.external_id}
        </h3>
        {line.current_status ? <LineStatusBadge status={line.current_status as never} /> : null}
      </header>
      {line.manual_decision ? (
        <p class="callout" role="note">
          <strong>Chosen by hand:</strong> sent to supplier {line.manual_decision.supplier.name} {actorWords(line.manual_decision.by)},{" "}
          <LocalTime iso={line.manual_decision.at} />. The rules below say what matching would decide without that choice.
        </p>
      ) : null}
      <p>
        <strong>{d.action === "none" ? "No supplier: " : "Decision: "}</strong>
        {d.message}
      </p>
      <h4>Routing rules</h4>
      {line.rules.length === 0 ? (
        <p class="muted">The account has no active routing rules.</p>
      ) : (
        <DataTable<ExplainedLine["rules"][number]>
          caption={`Rules for line ${line.position + 1}, in evaluation order`}
          rows={line.rules}
          columns={[
            { header: "Rule", cell: (r) => ("draft" in r && r.draft ? `${r.name} (this draft)` : `#${r.id} ${r.name}`) },
            { header: "Holds", cell: (r) => (r.matched ? <Badge tone="green">Yes</Badge> : <Badge tone="grey">No</Badge>) },
            {
              header: "Conditions (actual value)",
              cell: (r) =>
                r.conditions.length === 0 ? (
                  "always"
                ) : (
                  <ul class="plain">
                    {r.conditions.map((cond) => (
                      <li>
                        {cond.result ? "✓" : "✗"} {cond.variable} {cond.operator} {show(cond.value)} <span class="muted">(actual: {show(cond.actual)})</span>
                      </li>
                    ))}
                  </ul>
                ),
            },
            { header: "Note", cell: (r) => orDash(r.note) },
          ]}
        />
      )}
      <h4>Catalogue</h4>
      {line.catalogue.length === 0 ? (
        <p class="muted">No active catalogue product has this line's EAN or SKU.</p>
      ) : (
        <DataTable<ExplainedLine["catalogue"][number]>
          caption={`Catalogue candidates for line ${line.position + 1}`}
          rows={line.catalogue}
          columns={[
            { header: "Product", cell: (p) => `#${p.product_id} ${p.sku}` },
            { header: "Matched on", cell: (p) => (p.matched_on === "ean13" ? `EAN ${p.ean13}` : "SKU") },
            { header: "Supplier", cell: (p) => p.supplier.name },
            { header: "Purchase price", numeric: true, cell: (p) => money(p.purchase_price, currency) },
            { header: "Stock", numeric: true, cell: (p) => orDash(p.stock_quantity) },
            { header: "Eligible", cell: (p) => (p.eligible ? "yes" : `no: ${p.reason}`) },
            { header: "Note", cell: (p) => orDash(p.note) },
          ]}
        />
      )}
      <h4>Supplier field</h4>
      <p>
        {line.supplier_field.value === null
          ? "The line names no supplier."
          : line.supplier_field.supplier
            ? `The line names “${line.supplier_field.value}”: supplier ${line.supplier_field.supplier.name}.`
            : `The line names “${line.supplier_field.value}”: no active supplier has that name or code.`}
      </p>
    </article>
  );
}
