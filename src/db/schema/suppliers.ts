// Suppliers an account routes order lines to. The routing and forwarding capabilities extend them.
import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

export const CHANNELS = ["webhook", "pull", "email", "manual", "file"] as const;
export type Channel = (typeof CHANNELS)[number];

export const suppliers = sqliteTable(
  "suppliers",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    name: text("name").notNull(),
    code: text("code"),
    active: integer("active", { mode: "boolean" }).notNull().default(true),
    // Lower number wins ties (catalogue price ties, listing order).
    priority: integer("priority").notNull().default(100),
    // How matched lines reach the supplier (see src/forwarding).
    channel: text("channel", { enum: CHANNELS }).notNull().default("manual"),
    webhookUrl: text("webhook_url"),
    // HMAC secrets; during a rotation both the current and the previous one are valid.
    webhookSecret: text("webhook_secret"),
    webhookSecretPrevious: text("webhook_secret_previous"),
    email: text("email"),
    // The file channel (src/forwarding/channels/file.ts): the supplier's file server and how files
    // are named and written, without the secrets; the password or private key sealed apart
    // (src/lib/sealed.ts, bound to "supplier_file_transfer:<account id>:<supplier id>").
    fileTransfer: text("file_transfer", { mode: "json" }).$type<FileTransferConfig>(),
    fileTransferSecret: text("file_transfer_secret"),
    // Deadlines (optional): an answer (accept, decline, partial, ship, acknowledge) within this many
    // hours of the send; a shipment within this many days of the acceptance. A passed acknowledgement
    // deadline re-routes the line when ack_deadline_reroute is set.
    ackDeadlineHours: integer("ack_deadline_hours"),
    ackDeadlineReroute: integer("ack_deadline_reroute", { mode: "boolean" }).notNull().default(false),
    shipDeadlineDays: integer("ship_deadline_days"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("suppliers_account_name_uq").on(t.accountId, t.name),
    index("suppliers_account_code_idx").on(t.accountId, t.code),
  ],
);

export type Supplier = typeof suppliers.$inferSelect;

export const FILE_FORMATS = ["csv", "xml", "json", "x12"] as const;
export type FileFormat = (typeof FILE_FORMATS)[number];

/** A supplier's file server settings as stored (snake_case, as the API shows them; no secrets). */
export type FileTransferConfig = {
  protocol: "ftp" | "ftps" | "sftp";
  host: string;
  port: number;
  username: string;
  /** Which secret is sealed in file_transfer_secret. */
  authentication: "password" | "private_key";
  host_key_fingerprint: string | null;
  directory: string;
  filename: string;
  cancellation_filename: string;
  format: FileFormat;
  columns: { field: string; header: string }[] | null;
  delimiter: string;
  encoding: "utf-8" | "iso-8859-1" | "windows-1252";
  inbound: {
    directory: string;
    format: FileFormat;
    columns: { field: string; header: string }[] | null;
    archive_directory: string | null;
  } | null;
  /** Format x12 only (absent otherwise): the envelope's ids, the separators, the sets the supplier sends back (docs/edi.md). */
  x12?: X12Config;
};

/** A supplier's X12 settings as stored, every default filled in. */
export type X12Config = {
  version: "004010" | "004010VICS" | "005010" | "005010VICS";
  sender_qualifier: string;
  sender_id: string;
  receiver_qualifier: string;
  receiver_id: string;
  gs_sender: string;
  gs_receiver: string;
  usage: "P" | "T";
  element_separator: string;
  segment_terminator: string;
  component_separator: string;
  sends_back: ("997" | "855" | "856" | "810" | "846")[];
  cancellation: "860" | "none";
};

/** Answer files read from a file supplier's inbound directory: each claimed once (by name, size and modification time). */
export const inboundFiles = sqliteTable(
  "inbound_files",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    supplierId: integer("supplier_id")
      .notNull()
      .references(() => suppliers.id),
    name: text("name").notNull(),
    size: integer("size").notNull(),
    // As the server lists it; "" when it says none.
    modifiedAt: text("modified_at").notNull(),
    // processing (claimed by a cron run), done, failed (the file could not be read: error says why).
    status: text("status", { enum: ["processing", "done", "failed"] }).notNull(),
    rowsApplied: integer("rows_applied").notNull().default(0),
    rowsRefused: integer("rows_refused").notNull().default(0),
    error: text("error"),
    archivedTo: text("archived_to"),
    claimedAt: text("claimed_at").notNull(),
    // While 'processing': the claiming run's lease, renewed while it lives; past it, another run takes the file over.
    leaseUntil: text("lease_until"),
    finishedAt: text("finished_at"),
  },
  (t) => [
    uniqueIndex("inbound_files_claim_uq").on(t.supplierId, t.name, t.size, t.modifiedAt),
    index("inbound_files_supplier_idx").on(t.supplierId, t.id),
  ],
);
export type InboundFile = typeof inboundFiles.$inferSelect;

/** Each row of an answer file and what became of it. */
export const inboundFileRows = sqliteTable(
  "inbound_file_rows",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    fileId: integer("file_id")
      .notNull()
      .references(() => inboundFiles.id),
    // 1 for the first row after the header (CSV), or the first record (XML, JSON).
    row: integer("row").notNull(),
    lineId: integer("line_id"),
    action: text("action"),
    result: text("result", { enum: ["applied", "refused"] }).notNull(),
    message: text("message"),
  },
  (t) => [uniqueIndex("inbound_file_rows_file_row_uq").on(t.fileId, t.row)],
);
export type InboundFileRow = typeof inboundFileRows.$inferSelect;

/** Keys scoped to one supplier: the pull channel and the supplier's answers use them. */
export const supplierKeys = sqliteTable(
  "supplier_keys",
  {
    id: integer("id").primaryKey({ autoIncrement: true }),
    accountId: integer("account_id")
      .notNull()
      .references(() => accounts.id),
    supplierId: integer("supplier_id")
      .notNull()
      .references(() => suppliers.id),
    name: text("name"),
    keyHash: text("key_hash").notNull().unique(),
    prefix: text("prefix").notNull(),
    revokedAt: text("revoked_at"),
    lastUsedAt: text("last_used_at"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [index("supplier_keys_supplier_idx").on(t.supplierId)],
);

export type SupplierKey = typeof supplierKeys.$inferSelect;
