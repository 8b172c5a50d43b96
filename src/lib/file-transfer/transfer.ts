// A file server we put files on and read files from (a supplier's FTP, FTPS or SFTP server), as the
// file channel, the answer-file reader and the feed puller see it. One implementation per protocol
// beside this file (ftp.ts for FTP and explicit FTPS, sftp.ts for SFTP), each over the Workers
// runtime's TCP sockets. Nothing here knows about orders or suppliers.
import { hostRefusal, peerRefusal } from "../outbound-address";

export type FileTransferProtocol = "ftp" | "ftps" | "sftp";

export type FileTransferSettings = {
  protocol: FileTransferProtocol;
  host: string;
  port: number;
  username: string;
  /** One of password and privateKey (PEM, SFTP only). */
  password?: string;
  privateKey?: string;
  /** SFTP: the server's host key, pinned ("SHA256:<base64>", as `ssh-keygen -lf` prints it). */
  hostKeyFingerprint?: string;
  /** Every operation and the connection are time-boxed: the whole session ends by then. */
  timeoutMs: number;
};

export type RemoteFile = { name: string; size: number; modifiedAt: string | null; isDirectory: boolean };

/**
 * Why an operation failed, in words (FileTransferError.message) and as a kind a caller can act on.
 * `unclear`: the operation may have happened (the connection dropped after the command went out).
 */
export type FileTransferErrorKind =
  | "dns"
  | "refused"
  | "tls"
  | "auth"
  | "host_key_mismatch"
  /** The server's address is one we never connect to (src/lib/outbound-address.ts). */
  | "address"
  | "permission_denied"
  | "not_found"
  | "disk_full"
  | "timeout"
  | "protocol";

/**
 * The temporary name an atomic write uploads to, beside the file (`dir/.name.csv.part`): the same
 * for every attempt at that file, so an attempt killed mid-way leaves nothing the next one does not
 * overwrite and rename away.
 */
export const temporaryName = (directory: string, name: string) => `${directory}.${name}.part`;

export class FileTransferError extends Error {
  constructor(
    readonly kind: FileTransferErrorKind,
    message: string,
    readonly unclear = false,
    /** An SSH server's host key as it showed it (a mismatch, or none pinned): what a person may choose to pin. */
    readonly hostKey?: { fingerprint: string; type: string },
  ) {
    super(message);
    this.name = "FileTransferError";
  }
}

/**
 * Where a connector may connect (src/lib/outbound-address.ts), checked twice: `host` before the
 * socket is opened, and the peer `opened` reports once it is (before a byte is sent). workerd
 * reports the address as it was asked for ("host:port"), so a name is judged by its name there.
 */
export function refuseUnreachable(host: string, opened?: SocketInfo): void {
  const refusal = opened ? peerRefusal(opened) : hostRefusal(host);
  if (refusal) throw new FileTransferError("address", `not connecting to ${host}: it ${refusal}; nothing was sent`);
}

/** One session on the server: open it, do the work, close it. */
export interface FileTransferSession {
  list(directory: string): Promise<RemoteFile[]>;
  /** The whole file's bytes (at most `maxBytes`: more is a FileTransferError). */
  read(path: string, maxBytes: number): Promise<Uint8Array>;
  /** Writes the file under a temporary name in the same directory, then renames it, so a reader never sees half a file. Replaces a file of the same name. */
  writeAtomic(path: string, bytes: Uint8Array): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  remove(path: string): Promise<void>;
  /** Size and modification time, or null when there is no such file. */
  stat(path: string): Promise<RemoteFile | null>;
  close(): Promise<void>;
}

export type FileTransferConnector = (settings: FileTransferSettings) => Promise<FileTransferSession>;
