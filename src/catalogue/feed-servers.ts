// Feeds on a supplier's file server: ftp://, ftps:// (explicit TLS) and sftp:// URLs, read with the
// file channel's connectors (src/lib/file-transfer). The URL names the server and the file only; the
// login is the feed's credentials (the user, a password or SFTP key sealed apart, an SFTP server's
// pinned host key), as a supplier's file_transfer takes it. docs/catalogue.md, "Feeds on FTP and SFTP".
import { ftpConnector } from "../lib/file-transfer/ftp";
import { connectSftp } from "../lib/file-transfer/sftp";
import { FileTransferError, type FileTransferSettings } from "../lib/file-transfer/transfer";
import { FeedError } from "./feed-readers";

export const FILE_SERVER_PROTOCOLS = ["ftp:", "ftps:", "sftp:"] as const;

export const isFileServerUrl = (url: URL) => (FILE_SERVER_PROTOCOLS as readonly string[]).includes(url.protocol);

/** The URL's protocol as FileTransferSettings name it. */
export const fileServerProtocol = (url: URL) => url.protocol.slice(0, -1) as FileTransferSettings["protocol"];

/** What a file server URL has too much of or lacks, in words; null when it can be pulled. */
export function fileServerUrlProblem(url: URL): string | null {
  if (url.username || url.password) {
    return "must not hold a user name or password: give them in credentials (username, and password or private_key), where the secret is stored encrypted";
  }
  if (url.searchParams.has("host_key_fingerprint")) return "must not hold host_key_fingerprint: give it in credentials.host_key_fingerprint";
  if (url.pathname === "/" || url.pathname === "") return "must name the file's path";
  return null;
}

/** How a feed logs in to its file server, the secret opened. */
export type FileServerLogin = { username: string; hostKeyFingerprint: string | null; secret: { password: string } | { privateKey: string } };

/**
 * The least time a file server's session gets, whatever the feed's time box: a key exchange and a
 * login (an SSH password check, a TLS handshake) on a busy server or a loaded Worker can take
 * seconds, and a time box meant for an HTTP answer (FEED_TIMEOUT_MS, 1.5 s in the tests) would
 * refuse a server that works.
 */
export const FILE_SERVER_SESSION_MIN_MS = 10_000;

/** The file at an ftp://, ftps:// or sftp:// URL, whole (at most maxBytes), as a stream for the feed reader. */
export async function pullFromFileServer(url: URL, login: FileServerLogin, maxBytes: number, timeoutMs: number): Promise<ReadableStream<Uint8Array>> {
  const protocol = fileServerProtocol(url);
  const settings: FileTransferSettings = {
    protocol,
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port ? Number(url.port) : protocol === "sftp" ? 22 : 21,
    username: login.username,
    ...login.secret,
    ...(protocol === "sftp" && login.hostKeyFingerprint ? { hostKeyFingerprint: login.hostKeyFingerprint } : {}),
    timeoutMs: Math.max(timeoutMs, FILE_SERVER_SESSION_MIN_MS),
  };
  // The path as the server sees it: relative to where the session starts (sftp://host/upload/stock.csv is upload/stock.csv).
  const path = decodeURIComponent(url.pathname.replace(/^\//, ""));
  let bytes: Uint8Array;
  try {
    const session = await (protocol === "sftp" ? connectSftp : ftpConnector)(settings);
    try {
      bytes = await session.read(path, maxBytes);
    } finally {
      await session.close().catch(() => undefined);
    }
  } catch (error) {
    if (!(error instanceof FileTransferError)) throw error;
    throw new FeedError(`The feed file could not be read from ${url.protocol}//${url.host}/${path}: ${error.kind}: ${error.message}; nothing was changed.`);
  }
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}
