// Deciding one line: rules by priority, then the catalogue, then the line's supplier field.
// Pure: takes everything it needs, returns the decision and a trace of why (the explain endpoint
// shows the trace; the processor writes the decision).
import type { Channel, RoutingRule } from "../db/schema";
import { evaluateCondition, readVariable, type RoutingSubject } from "./rules.language";

export type SupplierRef = { id: number; name: string; code: string | null; active: boolean; priority: number; channel: Channel };

export type CatalogueCandidate = {
  productId: number;
  sku: string;
  ean13: string | null;
  purchasePrice: number | null;
  stockQuantity: number | null;
  supplierId: number;
};

export type Decision =
  | { action: "assign_supplier"; supplier: SupplierRef; decidedBy: "rule"; rule: RoutingRule; message: string }
  | { action: "assign_supplier"; supplier: SupplierRef; decidedBy: "catalogue"; product: CatalogueCandidate; message: string }
  | { action: "assign_supplier"; supplier: SupplierRef; decidedBy: "supplier_field"; message: string }
  | { action: "skip"; decidedBy: "rule"; rule: RoutingRule; message: string }
  | { action: "block"; decidedBy: "rule"; rule: RoutingRule; message: string }
  | { action: "none"; message: string };

export type RuleTrace = {
  id: number;
  name: string;
  priority: number;
  matched: boolean;
  note?: string;
  conditions: { variable: string; operator: string; value: unknown; actual: unknown; result: boolean }[];
};

export type CatalogueTrace = {
  product_id: number;
  sku: string;
  ean13: string | null;
  matched_on: "ean13" | "sku";
  supplier: { id: number; name: string };
  purchase_price: number | null;
  stock_quantity: number | null;
  eligible: boolean;
  reason: string | null;
  /** Why an eligible product did not win (only then). */
  note?: string;
};

export type LineTrace = { rules: RuleTrace[]; catalogue: CatalogueTrace[]; supplier_field: { value: string | null; supplier: { id: number; name: string } | null } };

export type RoutingContext = {
  rules: RoutingRule[];
  suppliers: Map<number, SupplierRef>;
  catalogue: CatalogueCandidate[];
  /** The order was unblocked by hand: that decision stands, block rules no longer apply to it. */
  unblockedByHand?: boolean;
};

/** The id of a draft rule that is not saved yet (explain can try one; saved rules have ids from 1). */
export const DRAFT_RULE_ID = 0;

const ruleLabel = (rule: RoutingRule) => (rule.id === DRAFT_RULE_ID ? `the draft rule '${rule.name}'` : `rule #${rule.id} '${rule.name}'`);

/**
 * `excluded`: suppliers that already had this line (re-routing, ./reroute.ts): passed over by rules,
 * the catalogue and the supplier field alike, so the next eligible one decides.
 */
export function decideLine(subject: RoutingSubject, ctx: RoutingContext, excluded: ReadonlySet<number> = new Set()): { decision: Decision; trace: LineTrace } {
  const trace: LineTrace = { rules: [], catalogue: [], supplier_field: { value: subject.line.supplier, supplier: null } };
  let decision: Decision | null = null;

  // 1. Rules, by priority; the first whose conditions hold decides.
  for (const rule of ctx.rules) {
    const conditions = rule.conditions.map((c) => ({
      variable: c.variable,
      operator: c.operator,
      value: c.value ?? null,
      actual: readVariable(subject, c.variable) ?? null,
      result: evaluateCondition(subject, c),
    }));
    // A rule without conditions always holds (a catch-all, e.g. a default supplier).
    const holds =
      conditions.length === 0 || (rule.match === "any" ? conditions.some((c) => c.result) : conditions.every((c) => c.result));
    const entry: RuleTrace = { id: rule.id, name: rule.name, priority: rule.priority, matched: false, conditions };
    trace.rules.push(entry);
    if (!holds) continue;
    if (decision) {
      // Only a rule can have decided yet.
      if ("rule" in decision) entry.note = `conditions hold, but rule #${decision.rule.id} decided first`;
      continue;
    }
    const action = rule.action;
    if (action.type === "assign_supplier") {
      const supplier = ctx.suppliers.get(action.supplier_id);
      if (!supplier || !supplier.active) {
        entry.note = "conditions hold, but its supplier is inactive or gone";
        continue;
      }
      if (excluded.has(supplier.id)) {
        entry.note = `conditions hold, but supplier ${supplier.name} already had this line`;
        continue;
      }
      entry.matched = true;
      decision = { action: "assign_supplier", supplier, decidedBy: "rule", rule, message: `Matched to supplier ${supplier.name} by ${ruleLabel(rule)}` };
    } else if (action.type === "skip") {
      entry.matched = true;
      decision = { action: "skip", decidedBy: "rule", rule, message: `Skipped by ${ruleLabel(rule)}` };
    } else if (ctx.unblockedByHand) {
      entry.note = "conditions hold, but the order was unblocked by hand";
    } else {
      entry.matched = true;
      decision = { action: "block", decidedBy: "rule", rule, message: `Order blocked by ${ruleLabel(rule)}` };
    }
  }

  // 2. The catalogue: same EAN-13, else same SKU as the line's reference; enough stock; cheapest wins.
  const byEan = subject.line.ean13 ? ctx.catalogue.filter((p) => p.ean13 === subject.line.ean13) : [];
  const bySku = subject.line.reference ? ctx.catalogue.filter((p) => p.sku === subject.line.reference) : [];
  const evaluate = (list: CatalogueCandidate[], on: "ean13" | "sku") =>
    list.map((p) => {
      const supplier = ctx.suppliers.get(p.supplierId);
      const reason = !supplier
        ? "supplier not found"
        : !supplier.active
          ? "supplier inactive"
          : excluded.has(supplier.id)
            ? "supplier already had this line"
            : p.stockQuantity !== null && p.stockQuantity < subject.line.quantity
            ? `not enough stock (${p.stockQuantity} < ${subject.line.quantity})`
            : null;
      const t: CatalogueTrace = {
        product_id: p.productId,
        sku: p.sku,
        ean13: p.ean13,
        matched_on: on,
        supplier: { id: p.supplierId, name: supplier?.name ?? "" },
        purchase_price: p.purchasePrice,
        stock_quantity: p.stockQuantity,
        eligible: reason === null,
        reason,
      };
      trace.catalogue.push(t);
      return { p, supplier, eligible: reason === null, trace: t };
    });
  const cheapest = (list: ReturnType<typeof evaluate>) =>
    list
      .filter((x) => x.eligible)
      .sort(
        (a, b) =>
          (a.p.purchasePrice ?? Infinity) - (b.p.purchasePrice ?? Infinity) ||
          a.supplier!.priority - b.supplier!.priority ||
          a.supplier!.id - b.supplier!.id ||
          a.p.productId - b.p.productId,
      )[0];
  const eanCandidates = evaluate(byEan, "ean13");
  const skuCandidates = evaluate(bySku.filter((p) => !byEan.includes(p)), "sku");
  const eanWinner = cheapest(eanCandidates);
  const skuWinner = cheapest(skuCandidates);
  const winner = eanWinner ?? skuWinner;
  // The explain endpoint says why each eligible product that did not win lost.
  for (const c of [...eanCandidates, ...skuCandidates]) {
    if (!c.eligible) continue;
    if (decision && "rule" in decision) c.trace.note = `rule #${decision.rule.id} decided first`;
    else if (!winner || c === winner) continue;
    else if (c.trace.matched_on === "sku" && eanWinner) c.trace.note = `an EAN match comes first (product #${winner.p.productId})`;
    else if ((c.p.purchasePrice ?? Infinity) > (winner.p.purchasePrice ?? Infinity)) c.trace.note = `dearer than product #${winner.p.productId}`;
    else c.trace.note = `same price as product #${winner.p.productId}, whose supplier comes first`;
  }
  if (!decision && winner) {
    const { p, supplier } = winner;
    const on = eanWinner ? `EAN ${p.ean13}` : `SKU ${p.sku}`;
    decision = {
      action: "assign_supplier",
      supplier: supplier!,
      decidedBy: "catalogue",
      product: p,
      message: `Matched to supplier ${supplier!.name} by catalogue product #${p.productId} (${on}, purchase price ${p.purchasePrice ?? "unknown"})`,
    };
  }

  // 3. The line's own supplier field, against the account's supplier names and codes.
  const named = subject.line.supplier?.trim().toLowerCase();
  const bySupplierField = named
    ? [...ctx.suppliers.values()].find((s) => s.active && !excluded.has(s.id) && (s.name.toLowerCase() === named || s.code?.toLowerCase() === named))
    : undefined;
  if (bySupplierField) trace.supplier_field.supplier = { id: bySupplierField.id, name: bySupplierField.name };
  if (!decision && bySupplierField) {
    decision = {
      action: "assign_supplier",
      supplier: bySupplierField,
      decidedBy: "supplier_field",
      message: `Matched to supplier ${bySupplierField.name} by the line's supplier field`,
    };
  }

  // 4. Nothing: the line waits, and says why.
  if (!decision) {
    const reasons = [
      ctx.rules.length ? "no routing rule applies" : "no routing rules",
      byEan.length + bySku.length ? "no eligible catalogue product (see explain)" : "no catalogue product with this EAN or SKU",
      named ? `no active supplier named '${subject.line.supplier}'` : "no supplier named on the line",
    ];
    decision = { action: "none", message: `No supplier matched: ${reasons.join("; ")}` };
  }
  return { decision, trace };
}
