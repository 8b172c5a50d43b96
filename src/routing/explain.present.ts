// An explanation (routing.service.ts explainOrder) in the public JSON of POST
// /api/v1/routing-rules/explain, which the console's explain and "try it" pages show too.
import type { explainOrder } from "./routing.service";

export type Explanation = Awaited<ReturnType<typeof explainOrder>>;

export function presentExplanation(e: Explanation) {
  return {
    reference: e.reference,
    blocked: e.blocked,
    outcome: e.outcome,
    lines: e.lines.map(({ position, line, chain, decision, trace }) => ({
      position,
      line_id: line.id,
      external_id: line.externalId,
      current_status: line.currentStatus,
      decision: {
        action: decision.action,
        decided_by: decision.action === "none" ? null : decision.decidedBy,
        supplier: decision.action === "assign_supplier" ? { id: decision.supplier.id, name: decision.supplier.name } : null,
        rule_id: "rule" in decision ? decision.rule.id : null,
        product_id: decision.action === "assign_supplier" && decision.decidedBy === "catalogue" ? decision.product.productId : null,
        message: decision.message,
      },
      // The supplier a person chose for the line (src/routing/line-actions.ts), until it leaves that supplier.
      manual_decision: line.manualDecision
        ? { supplier: { id: line.manualDecision.supplier_id, name: line.manualDecision.supplier_name }, by: line.manualDecision.by, at: line.manualDecision.at }
        : null,
      rules: trace.rules.map((r) => (r.id === e.draftRuleId ? { ...r, draft: true } : r)),
      catalogue: trace.catalogue,
      supplier_field: trace.supplier_field,
      // The suppliers the line had before, and why each let it go (src/routing/reroute.ts).
      reroute: {
        enabled: e.policy.enabled,
        attempt: chain.length + 1,
        max_attempts: e.policy.maxAttempts,
        split_from_line_id: line.splitFromLineId,
        chain: chain.map((h) => ({ supplier: { id: h.supplier_id, name: h.supplier_name }, outcome: h.outcome, reason: h.reason, line_id: h.line_id, at: h.at })),
      },
    })),
  };
}
