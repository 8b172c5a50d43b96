// Shop connections in their public JSON shape: the credentials only as their masked hints.
import type { ShopConnectionRow } from "../db/schema";

export function presentConnection(r: ShopConnectionRow) {
  return {
    id: r.id,
    platform: r.platform,
    name: r.name,
    base_url: r.baseUrl,
    credentials: r.credentialsHint,
    sources: r.sources,
    settings: r.settings,
    active: r.active,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  };
}
