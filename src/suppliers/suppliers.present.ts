import type { Supplier } from "../db/schema";

export function presentSupplier(s: Supplier) {
  return {
    id: s.id,
    name: s.name,
    code: s.code,
    active: s.active,
    priority: s.priority,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}
