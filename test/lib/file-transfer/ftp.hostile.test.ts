// The FTP connector inside workerd against a hostile server over real TCP
// (test/lib/file-transfer/ftp-hostile.global.ts): passive addresses that name another host, replies
// that are not FTP, never end or come a byte at a time, and generated replies at every step of a
// session. Whatever the server sends, a call ends within the session's time box, in a
// FileTransferError in words, and never connects anywhere but the host it was given.
import { connect } from "cloudflare:sockets";
import fc from "fast-check";
import { describe, expect, inject, it } from "vitest";
import { ftpConnector } from "../../../src/lib/file-transfer/ftp";
import { MAX_REPLY_CHARS } from "../../../src/lib/file-transfer/ftp-parse";
import { FileTransferError, type FileTransferSettings } from "../../../src/lib/file-transfer/transfer";
import { fuzz } from "../../helpers/fuzz";

const hostile = inject("ftpHostile");
const where = `the FTP server 127.0.0.1:${hostile.port}`;
const settings = (over: Partial<FileTransferSettings> = {}): FileTransferSettings => ({ protocol: "ftp", host: "127.0.0.1", port: hostile.port, username: "shop", password: "secret", timeoutMs: 5000, ...over });

type HostileScript = { greeting?: string; replies?: Record<string, string>; trickle?: boolean; closeAfter?: string; pasvHost?: string; listing?: string };

/** One line to the hostile server's script port; its one-line answer. */
async function tell(line: string): Promise<string> {
  const socket = connect({ hostname: "127.0.0.1", port: hostile.scriptPort });
  const writer = socket.writable.getWriter();
  await writer.write(new TextEncoder().encode(`${line}\n`));
  const reader = socket.readable.getReader();
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  await socket.close().catch(() => {});
  return text.trim();
}

/** The next control connection follows `script`. */
async function script(s: HostileScript) {
  expect(await tell(JSON.stringify(s))).toBe("ok");
}

/** Data connections that reached the trap at 127.0.0.2 since the last call. */
async function trapped(): Promise<string[]> {
  return JSON.parse(await tell("TRAPPED")) as string[];
}

/** Bytes as the latin1 string the script carries (every byte one character). */
const latin1 = (bytes: Uint8Array) => String.fromCharCode(...bytes);

async function outcome(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileTransferError);
  const { kind, message, unclear } = error as FileTransferError;
  return { kind, message, unclear };
}

/** Opens a session on the scripted server, lists "/", closes: what the caller got. */
async function listOnce(s: HostileScript, over: Partial<FileTransferSettings> = {}) {
  await script(s);
  const session = await ftpConnector(settings(over));
  try {
    return await session.list("/");
  } finally {
    await session.close();
  }
}

describe("a PASV answer naming another host", () => {
  // EPSV refused, so the client asks PASV, whose answer names the address.
  const noEpsv = { EPSV: "500 EPSV not understood.\r\n" };
  it.each(["169.254.169.254", "10.0.0.1", "127.0.0.2"])("names %s: the data connection goes to the control connection's host all the same", async (pasvHost) => {
    const listed = await listOnce({ replies: noEpsv, pasvHost });
    expect(listed.map((f) => f.name)).toEqual(["from-the-control-host.csv"]);
    expect(await trapped()).toEqual([]);
  });

  it("EPSV is asked first, and PASV only once a server refuses it", async () => {
    // No PASV at all: a client that asked it first would fail.
    const listed = await listOnce({ replies: { PASV: "502 No PASV here.\r\n" } });
    expect(listed.map((f) => f.name)).toEqual(["from-the-control-host.csv"]);
  });

  it("a PASV answer without a usable address or port is refused in words", async () => {
    for (const [reply, text] of [
      ["227 Entering Passive Mode (127,0,0,1,0,0).\r\n", "227 Entering Passive Mode (127,0,0,1,0,0)."],
      ["227 Entering Passive Mode (300,0,0,1,4,1).\r\n", "227 Entering Passive Mode (300,0,0,1,4,1)."],
      ["227 Entering Passive Mode (127,0,0,1,256,1).\r\n", "227 Entering Passive Mode (127,0,0,1,256,1)."],
      ["227 Entering Passive Mode\r\n", "227 Entering Passive Mode"],
    ]) {
      await script({ replies: { ...noEpsv, PASV: reply } });
      const session = await ftpConnector(settings());
      expect(await outcome(session.list("/"))).toEqual({ kind: "protocol", message: `${where} answered PASV without an address and port we can use (${text})`, unclear: false });
      await session.close();
    }
  });

  it("an EPSV answer with a port out of range is refused in words", async () => {
    for (const port of ["0", "65536", "99999999999"]) {
      await script({ replies: { EPSV: `229 Entering Extended Passive Mode (|||${port}|)\r\n` } });
      const session = await ftpConnector(settings());
      expect(await outcome(session.list("/"))).toEqual({ kind: "protocol", message: `${where} answered EPSV without a port we can use (229 Entering Extended Passive Mode (|||${port}|))`, unclear: false });
      await session.close();
    }
  });
});

describe("replies that are not FTP", () => {
  it("a greeting in another protocol", async () => {
    await script({ greeting: "SSH-2.0-OpenSSH_9.2p1\r\n" });
    expect(await outcome(ftpConnector(settings()))).toEqual({ kind: "protocol", message: `${where} does not speak FTP (it said "SSH-2.0-OpenSSH_9.2p1")`, unclear: false });
  });

  it("a multi-line reply that never ends: the time box ends it, the command unanswered", async () => {
    await script({ replies: { FEAT: "211-Features:\r\n EPSV\r\n212 End\r\n" } });
    expect(await outcome(ftpConnector(settings({ timeoutMs: 1000 })))).toEqual({ kind: "timeout", message: `${where} did not finish within 1000 ms (waiting for the answer to FEAT): the session was ended`, unclear: true });
  });

  it(`a line longer than ${MAX_REPLY_CHARS} characters, sent with no end: refused at the limit`, async () => {
    await script({ replies: { PWD: `257 "${"x".repeat(MAX_REPLY_CHARS)}` } });
    expect(await outcome(ftpConnector(settings()))).toEqual({ kind: "protocol", message: `${where} does not speak FTP (${MAX_REPLY_CHARS} characters without a complete reply)`, unclear: true });
  });

  it("every reply a byte at a time, with bare LFs and a multi-line FEAT: read as if sent whole", async () => {
    const listed = await listOnce({ trickle: true, greeting: "220-Hello\n220-there\n220 Ready\n", replies: { FEAT: "211-Features:\n EPSV\n MDTM\n211 End\n" } });
    expect(listed.map((f) => f.name)).toEqual(["from-the-control-host.csv"]);
  });

  it("a listing that is not one: its lines are left out", async () => {
    expect(await listOnce({ listing: "garbage\r\n\u0000\u00ff\r\ntotal 8\r\n-rw-r--r-- 1 u g 99999999999999999999 Nov 25 20:59 too-big.csv\r\n" })).toEqual([]);
  });
});

describe("generated replies at every step of a session", () => {
  const steps = ["greeting", "USER", "PASS", "TYPE", "FEAT", "PWD", "CWD", "EPSV", "LIST"] as const;
  const code = fc.integer({ min: 100, max: 699 }).map(String);
  const raw = fc.oneof(
    fc.uint8Array({ maxLength: 120 }).map(latin1),
    fc.array(fc.oneof(code, fc.constantFrom("-", " ", "\r\n", "\n", "\r", "(|||", "|)", ",", "(", ")", "65536", "0", "99999", "\u00ff", '"'), fc.string({ maxLength: 12 })), { maxLength: 16 }).map((parts) => parts.join("")),
  );
  it("end in success or a FileTransferError in words, within the time box; never another error, never a hang", async () => {
    await fuzz(fc.tuple(fc.constantFrom(...steps), raw, fc.boolean(), fc.boolean()), 40, async ([step, bytes, close, trickle]) => {
      const s: HostileScript = step === "greeting" ? { greeting: bytes } : { replies: { [step]: bytes } };
      // Mostly the server closes after its reply (the session ends at once); else the time box ends it.
      if (close) s.closeAfter = step;
      s.trickle = trickle && bytes.length < 40;
      await script(s);
      const started = Date.now();
      const timeoutMs = 600;
      const result = await ftpConnector(settings({ timeoutMs })).then(
        async (session) => {
          try {
            return await session.list("/");
          } finally {
            await session.close();
          }
        },
        (error: unknown) => error,
      ).catch((error: unknown) => error);
      if (result instanceof Error) {
        expect(result).toBeInstanceOf(FileTransferError);
        expect(result.message).toMatch(/^(the FTP server 127\.0\.0\.1:\d+ |the connection to the FTP server|the data connection to the FTP server)/);
      } else expect(Array.isArray(result)).toBe(true);
      // The time box, and what it takes to notice on a loaded machine.
      expect(Date.now() - started).toBeLessThan(timeoutMs + 3000);
    });
    expect(await trapped()).toEqual([]);
  });
});
