// A supplier's file server settings (the `file` channel): stored without their secret, the
// password or private key sealed apart (src/lib/sealed.ts) and opened only to connect.
import type { FileTransferConfig, Supplier } from "../db/schema";
import { ApiError } from "../lib/errors";
import type { FileTransferSettings } from "../lib/file-transfer/transfer";
import { open, seal, type SealingKeys } from "../lib/sealed";
import { x12ConfigOf } from "./x12.config";
import type { X12Input } from "./x12.schemas";

/** The setting as the API takes it (file-transfer.schemas.ts checked it). */
export type FileTransferInput = Omit<FileTransferConfig, "authentication" | "port" | "host_key_fingerprint" | "directory" | "filename" | "cancellation_filename" | "format" | "columns" | "delimiter" | "encoding" | "inbound" | "x12"> & {
  port?: number;
  password?: string;
  private_key?: string;
  host_key_fingerprint?: string;
  directory?: string;
  filename?: string;
  cancellation_filename?: string;
  format?: FileTransferConfig["format"];
  columns?: { field: string; header: string }[];
  delimiter?: string;
  encoding?: FileTransferConfig["encoding"];
  inbound?: { directory: string; format?: FileTransferConfig["format"]; columns?: { field: string; header: string }[]; archive_directory?: string | null } | null;
  x12?: X12Input;
};

type Secret = { password: string } | { private_key: string };

export const DEFAULTS = {
  filename: "{reference}-{dispatch_id}.{ext}",
  cancellationFilename: "cancellation-{reference}-{cancellation_id}.{ext}",
} as const;

const boundTo = (accountId: number, supplierId: number) => `supplier_file_transfer:${accountId}:${supplierId}`;

/** The stored setting: every field with its default filled in. */
function configOf(input: FileTransferInput, authentication: FileTransferConfig["authentication"]): FileTransferConfig {
  return {
    protocol: input.protocol,
    host: input.host,
    port: input.port ?? (input.protocol === "sftp" ? 22 : 21),
    username: input.username,
    authentication,
    host_key_fingerprint: input.host_key_fingerprint ?? null,
    directory: input.directory ?? ".",
    filename: input.filename ?? DEFAULTS.filename,
    cancellation_filename: input.cancellation_filename ?? DEFAULTS.cancellationFilename,
    format: input.format ?? "csv",
    columns: input.columns ?? null,
    delimiter: input.delimiter ?? ",",
    encoding: input.encoding ?? "utf-8",
    inbound: input.inbound
      ? {
          directory: input.inbound.directory,
          // An X12 supplier answers in X12 unless it says otherwise.
          format: input.inbound.format ?? (input.format === "x12" ? "x12" : "csv"),
          columns: input.inbound.columns ?? null,
          archive_directory: input.inbound.archive_directory ?? null,
        }
      : null,
    ...(input.format === "x12" && input.x12 ? { x12: x12ConfigOf(input.x12) } : {}),
  };
}

export type StoredSecret = { kind: FileTransferConfig["authentication"]; sealed: string };

/**
 * The secret to store for a login to a file server (bound to `boundTo`) and its kind. Without a
 * password or key the stored one is kept (its kind must still fit the protocol); a login without
 * one must send one. `prefix` names the object in the errors ("file_transfer", "credentials").
 */
export async function sealedLogin(
  keys: SealingKeys,
  boundTo: string,
  protocol: FileTransferConfig["protocol"],
  input: { password?: string; private_key?: string },
  stored: StoredSecret | null,
  prefix: string,
): Promise<StoredSecret> {
  const given: Secret | null = input.password !== undefined ? { password: input.password } : input.private_key !== undefined ? { private_key: input.private_key } : null;
  if (!given) {
    if (!stored) throw ApiError.validation({ [`${prefix}.password`]: [`The ${prefix}.password field is required when no private_key is given.`] });
    if (stored.kind === "private_key" && protocol !== "sftp") {
      throw ApiError.validation({ [`${prefix}.password`]: [`The ${prefix}.password field is required: the stored private key is only for protocol sftp.`] });
    }
    return stored;
  }
  return { kind: "password" in given ? "password" : "private_key", sealed: await seal(keys, JSON.stringify(given), boundTo) };
}

/** A sealed login's password or private key, opened. */
export async function openLogin(keys: SealingKeys, sealed: string, boundTo: string): Promise<Secret> {
  return JSON.parse(await open(keys, sealed, boundTo)) as Secret;
}

/** The secret as FileTransferSettings take it. */
export const secretSettings = (secret: Secret) => ("password" in secret ? { password: secret.password } : { privateKey: secret.private_key });

/** The columns to store for a new or changed setting (null: cleared). */
export async function fileTransferColumns(
  keys: SealingKeys,
  accountId: number,
  supplierId: number,
  input: FileTransferInput | null,
  stored: StoredSecret | null,
): Promise<{ fileTransfer: FileTransferConfig | null; fileTransferSecret: string | null }> {
  if (input === null) return { fileTransfer: null, fileTransferSecret: null };
  const secret = await sealedLogin(keys, boundTo(accountId, supplierId), input.protocol, input, stored, "file_transfer");
  return { fileTransfer: configOf(input, secret.kind), fileTransferSecret: secret.sealed };
}

async function openSecret(keys: SealingKeys, supplier: Pick<Supplier, "id" | "accountId" | "fileTransferSecret">): Promise<Secret | null> {
  if (!supplier.fileTransferSecret) return null;
  return openLogin(keys, supplier.fileTransferSecret, boundTo(supplier.accountId, supplier.id));
}

/** What a connection needs: the setting with its secret opened, time-boxed to `timeoutMs`. */
export async function connectionSettings(
  keys: SealingKeys,
  supplier: Pick<Supplier, "id" | "accountId" | "fileTransfer" | "fileTransferSecret">,
  timeoutMs: number,
): Promise<FileTransferSettings> {
  const config = supplier.fileTransfer;
  if (!config) throw new Error("the supplier has no file server settings");
  const secret = await openSecret(keys, supplier);
  if (!secret) throw new Error("the supplier's file server has no password or key stored");
  return {
    protocol: config.protocol,
    host: config.host,
    port: config.port,
    username: config.username,
    ...secretSettings(secret),
    ...(config.host_key_fingerprint ? { hostKeyFingerprint: config.host_key_fingerprint } : {}),
    timeoutMs,
  };
}

