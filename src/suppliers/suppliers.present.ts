import type { Supplier, SupplierKey } from "../db/schema";
import type { InboundFileWithRows } from "../forwarding/inbound-files.service";

export function presentSupplier(s: Supplier) {
  return {
    id: s.id,
    name: s.name,
    code: s.code,
    active: s.active,
    priority: s.priority,
    channel: s.channel,
    webhook_url: s.webhookUrl,
    email: s.email,
    acknowledgement_deadline_hours: s.ackDeadlineHours,
    acknowledgement_deadline_reroute: s.ackDeadlineReroute,
    shipping_deadline_days: s.shipDeadlineDays,
    // Every file server setting but the password and the private key (the pinned fingerprint included).
    file_transfer: s.fileTransfer ?? null,
    previous_secret_valid: s.webhookSecretPrevious !== null,
    created_at: s.createdAt,
    updated_at: s.updatedAt,
  };
}

/** The create and rotate answers: the only ones that show the signing secret. */
export function presentSupplierWithSecret(s: Supplier) {
  return { ...presentSupplier(s), webhook_secret: s.webhookSecret };
}

/** A supplier key as listed: never the secret, only its first characters. */
export function presentSupplierKey(k: SupplierKey) {
  return { id: k.id, supplier_id: k.supplierId, name: k.name, prefix: k.prefix, revoked_at: k.revokedAt, created_at: k.createdAt };
}

/** A supplier key just issued, with its secret: the one answer that shows it. */
export function presentNewSupplierKey({ key, secret }: { key: SupplierKey; secret: string }) {
  return { id: key.id, supplier_id: key.supplierId, name: key.name, key: secret, prefix: key.prefix, created_at: key.createdAt };
}

/** An answer file as GET /suppliers/{id}/inbound-files shows it: what became of it and of each row. */
export function presentInboundFile({ file, rows }: InboundFileWithRows) {
  return {
    id: file.id,
    name: file.name,
    size: file.size,
    modified_at: file.modifiedAt || null,
    status: file.status,
    error: file.error,
    rows_applied: file.rowsApplied,
    rows_refused: file.rowsRefused,
    archived_to: file.archivedTo,
    claimed_at: file.claimedAt,
    finished_at: file.finishedAt,
    rows: rows.map((r) => ({ row: r.row, line_id: r.lineId, action: r.action, result: r.result, message: r.message })),
  };
}
