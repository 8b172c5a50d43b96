// Why an outbound fetch() failed, in words an operator can act on. The runtime's own errors say
// little ("Network connection lost." for a refused, reset or non-HTTP connection; "internal error;
// reference = …" for a name that does not resolve or a failed TLS handshake), so a failed connection
// is probed once with a plain TCP connect: nothing there, or a server that took the connection and
// then failed the exchange.
import { connect } from "cloudflare:sockets";

const PROBE_TIMEOUT_MS = 3000;

export const isTimeout = (error: unknown) => error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");

export const seconds = (ms: number) => `${Math.round(ms / 100) / 10} s`;

function portOf(url: URL): number {
  return url.port ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
}

/** Whether a plain TCP connection to the URL's host and port opens. */
async function accepts(url: URL): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const socket = connect({ hostname: url.hostname.replace(/^\[|\]$/g, ""), port: portOf(url) });
    const timedOut = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), PROBE_TIMEOUT_MS);
    });
    const opened = await Promise.race([socket.opened.then(() => true), timedOut]);
    socket.close().catch(() => undefined);
    return opened;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * What went wrong when fetch(url) threw before an answer came: a sentence without a final period,
 * such as "the host name feed.invalid does not resolve (DNS)".
 */
export async function explainFetchFailure(url: URL, error: unknown, timeoutMs: number): Promise<string> {
  const host = url.host;
  if (isTimeout(error)) return `${host} did not answer within ${seconds(timeoutMs)}`;
  const message = error instanceof Error ? error.message : String(error);
  const lost = /network connection lost/i.test(message);
  const opaque = /internal error/i.test(message);
  if (!lost && !opaque) return `the request to ${host} failed: ${message}`;
  if (await accepts(url)) {
    return url.protocol === "https:"
      ? `${host} accepted the connection, but the TLS handshake or the HTTP exchange failed (is it https on port ${portOf(url)}, with a valid certificate?)`
      : `${host} accepted the connection, then closed or reset it without an HTTP answer (is ${portOf(url)} its web server's port?)`;
  }
  return lost
    ? `the connection to ${host} was refused: nothing listens on port ${portOf(url)} there`
    : `the host name ${url.hostname} does not resolve (DNS)`;
}
