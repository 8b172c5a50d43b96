// Feeds on a supplier's file server: ftp://, ftps:// (explicit TLS) and sftp:// URLs, read with the
// file channel's connectors (src/lib/file-transfer). The credentials ride in the URL as they do for
// an https feed (user:password@host); an SFTP server's host key is pinned with the URL's
// host_key_fingerprint parameter (SHA256:…, URL-encoded). docs/catalogue.md, "Feeds on FTP and SFTP".
import { ftpConnector } from "../lib/file-transfer/ftp";
import { connectSftp } from "../lib/file-transfer/sftp";
import { FileTransferError, type FileTransferSettings } from "../lib/file-transfer/transfer";
import { FeedError } from "./feed-readers";

export const FILE_SERVER_PROTOCOLS = ["ftp:", "ftps:", "sftp:"] as const;
const FINGERPRINT = /^SHA256:[A-Za-z0-9+/]{43}=?$/;

export const isFileServerUrl = (url: URL) => (FILE_SERVER_PROTOCOLS as readonly string[]).includes(url.protocol);

/** What a file server URL lacks, in words; null when it can be pulled. */
export function fileServerUrlProblem(url: URL): string | null {
  if (!url.username) return "must name the user (ftp://user:password@host/path)";
  if (!url.password) return "must hold the password (ftp://user:password@host/path)";
  if (url.pathname === "/" || url.pathname === "") return "must name the file's path";
  const fingerprint = url.searchParams.get("host_key_fingerprint");
  if (url.protocol === "sftp:" && (!fingerprint || !FINGERPRINT.test(fingerprint))) {
    return "must pin the server's host key: ?host_key_fingerprint=SHA256:… (URL-encoded, as ssh-keygen -lf prints it)";
  }
  return null;
}

/** The file at an ftp://, ftps:// or sftp:// URL, whole (at most maxBytes), as a stream for the feed reader. */
export async function pullFromFileServer(url: URL, maxBytes: number, timeoutMs: number): Promise<ReadableStream<Uint8Array>> {
  const protocol = url.protocol.slice(0, -1) as FileTransferSettings["protocol"];
  const settings: FileTransferSettings = {
    protocol,
    host: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port ? Number(url.port) : protocol === "sftp" ? 22 : 21,
    username: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    ...(protocol === "sftp" ? { hostKeyFingerprint: url.searchParams.get("host_key_fingerprint") ?? undefined } : {}),
    timeoutMs,
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
