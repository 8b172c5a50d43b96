import type { RoutingRule } from "../db/schema";

export function presentRule(r: RoutingRule) {
  return {
    id: r.id,
    name: r.name,
    priority: r.priority,
    match: r.match,
    conditions: r.conditions,
    action: r.action,
    active: r.active,
    no_reroute: r.noReroute,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
