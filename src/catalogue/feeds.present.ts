// Feeds and import records in their public JSON shape.
import type { ProductFeed, ProductImport } from "../db/schema";

export function presentFeed(f: ProductFeed) {
  return {
    id: f.id,
    supplier_id: f.supplierId,
    name: f.name,
    format: f.format,
    mapping: f.mapping ?? {},
    url: f.url,
    schedule: f.schedule,
    next_import_at: f.nextImportAt,
    encoding: f.encoding,
    csv_delimiter: f.csvDelimiter,
    record_path: f.recordPath,
    active: f.active,
    // The login without its secret: which kind is stored, never the password or key.
    credentials: f.credentials ? { username: f.credentials.username, authentication: f.credentials.authentication, host_key_fingerprint: f.credentials.host_key_fingerprint } : null,
    created_at: f.createdAt,
    updated_at: f.updatedAt,
  };
}

export function presentImport(i: ProductImport) {
  return {
    id: i.id,
    product_feed_id: i.productFeedId,
    trigger: i.trigger,
    status: i.status,
    replace: i.replace,
    source: i.source,
    started_at: i.startedAt,
    finished_at: i.finishedAt,
    rows_read: i.rowsRead,
    created: i.rowsCreated,
    updated: i.rowsUpdated,
    unchanged: i.rowsUnchanged,
    deactivated: i.rowsDeactivated,
    rejected: i.rowsRejected,
    error: i.error,
    rejections: i.rejections,
    unmapped_columns: i.unmappedColumns,
    warnings: i.warnings,
  };
}
