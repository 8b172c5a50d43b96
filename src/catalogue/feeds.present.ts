// Feeds and import records in their public JSON shape.
import type { ProductFeed, ProductImport } from "../db/schema";
import { shownLogin, withoutLogin } from "./feed-urls";

export function presentFeed(f: ProductFeed) {
  return {
    id: f.id,
    supplier_id: f.supplierId,
    name: f.name,
    format: f.format,
    mapping: f.mapping ?? {},
    url: withoutLogin(f.url),
    schedule: f.schedule,
    next_import_at: f.nextImportAt,
    encoding: f.encoding,
    csv_delimiter: f.csvDelimiter,
    record_path: f.recordPath,
    active: f.active,
    // The login without its secret: which kind is stored, never the password or key.
    credentials: presentLogin(f),
    created_at: f.createdAt,
    updated_at: f.updatedAt,
  };
}

function presentLogin(f: ProductFeed) {
  const login = shownLogin(f);
  return login ? { username: login.username, authentication: login.authentication, host_key_fingerprint: login.host_key_fingerprint } : null;
}

export function presentImport(i: ProductImport) {
  return {
    id: i.id,
    product_feed_id: i.productFeedId,
    trigger: i.trigger,
    status: i.status,
    replace: i.replace,
    // Imports recorded before logins left urls may name one.
    source: withoutLogin(i.source),
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
