// The FTP/FTPS connector inside workerd against a real vsftpd on loopback
// (test/lib/file-transfer/ftp-server.global.ts): every operation, the atomic upload seen by a reader
// polling the folder, a repeated upload, and each failure as a kind and in words.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, inject, it } from "vitest";
import { createFtpConnector, ftpConnector, type SocketOpener } from "../../../src/lib/file-transfer/ftp";
import { parseListLine } from "../../../src/lib/file-transfer/ftp-parse";
import { FileTransferError, type FileTransferSession, type FileTransferSettings } from "../../../src/lib/file-transfer/transfer";

const server = inject("ftpServer");
const where = `the FTP server ${server.host}:${server.port}`;
const settings = (over: Partial<FileTransferSettings> = {}): FileTransferSettings => ({
  protocol: "ftp",
  host: server.host,
  port: server.port,
  username: server.username,
  password: server.password,
  timeoutMs: 20_000,
  ...over,
});
// FTPS goes out through a network that trusts the test's throwaway CA (vitest.config.ts).
const trusting: SocketOpener = (address, options) => env.FTP_TEST_NETWORK.connect(address, options);
const ftpsConnector = createFtpConnector(trusting);

const open: FileTransferSession[] = [];
async function session(over: Partial<FileTransferSettings> = {}, connector = ftpConnector) {
  const s = await connector(settings(over));
  open.push(s);
  return s;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const bytesOf = (text: string) => new TextEncoder().encode(text);
const unique = () => crypto.randomUUID().slice(0, 8);

/** What a failed call threw, as a caller sees it. */
async function failure(promise: Promise<unknown>) {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(FileTransferError);
  const { kind, message, unclear } = error as FileTransferError;
  return { kind, message, unclear };
}

describe.each([
  ["ftp", ftpConnector, server.port],
  ["ftps", ftpsConnector, server.port],
  // vsftpd as it ships: a TLS data connection must resume the control connection's TLS session
  // (workerd's TLS client does).
  ["ftps with require_ssl_reuse", ftpsConnector, server.sslReusePort],
] as const)("%s against vsftpd", (label, connector, port) => {
  const protocol = label.startsWith("ftps") ? "ftps" : "ftp";
  it("writes, lists, reads back, stats, renames and removes a file", async () => {
    const s = await session({ protocol, port }, connector);
    const name = `${unique()}-order.csv`;
    const content = bytesOf("reference;sku;quantity\nR-1;SKU-1;2\n");
    await s.writeAtomic(`upload/${name}`, content);

    const listed = await s.list("upload");
    const entry = listed.find((f) => f.name === name);
    expect(entry).toMatchObject({ name, size: content.byteLength, isDirectory: false });
    expect(Math.abs(Date.parse(entry!.modifiedAt!) - Date.now())).toBeLessThan(120_000);
    expect(listed.filter((f) => f.name.includes(name))).toHaveLength(1);
    expect(await s.read(`upload/${name}`, 1024)).toEqual(content);

    const stat = await s.stat(`upload/${name}`);
    expect(stat).toMatchObject({ name, size: content.byteLength, isDirectory: false });
    expect(Math.abs(Date.parse(stat!.modifiedAt!) - Date.now())).toBeLessThan(120_000);
    expect(await s.stat("upload")).toEqual({ name: "upload", size: 0, modifiedAt: null, isDirectory: true });
    expect(await s.stat(`upload/${name}.missing`)).toBeNull();

    await s.rename(`upload/${name}`, `upload/${name}.done`);
    expect(await s.stat(`upload/${name}`)).toBeNull();
    expect(await s.read(`upload/${name}.done`, 1024)).toEqual(content);

    await s.remove(`upload/${name}.done`);
    expect((await s.list("upload")).filter((f) => f.name.includes(name))).toEqual([]);
  });

  it("reads and writes bytes exactly, in binary", async () => {
    const s = await session({ protocol, port }, connector);
    const content = new Uint8Array(300_000).map((_, i) => (i * 7919) % 256);
    content.set(bytesOf("\r\n\n\r"), 1000);
    const path = `upload/${unique()}.bin`;
    await s.writeAtomic(path, content);
    expect(await s.read(path, content.byteLength)).toEqual(content);
    await s.remove(path);
  });
});

describe("writeAtomic", () => {
  it("never shows a reader polling the folder the final name with a partial size", async () => {
    // Through the vsftpd that takes uploads at 2 MB/s: 8 MiB take about 4 s, so the reader looks
    // many times while the bytes are on their way, on a fast machine or a loaded one.
    const writer = await session({ port: server.slowPort });
    const reader = await session();
    const name = `${unique()}-large.csv`;
    const content = new Uint8Array(8 * 1024 * 1024).fill(65);
    let uploading = true;
    let pollsDuringUpload = 0;
    const sightings: number[] = [];
    const temporaries = new Set<string>();
    const polling = (async () => {
      while (uploading) {
        for (const f of await reader.list("upload")) {
          if (f.name === name) sightings.push(f.size);
          else if (f.name.startsWith(`.${name}.`) && f.name.endsWith(".part")) temporaries.add(f.name);
        }
        if (uploading) pollsDuringUpload++;
      }
    })();
    await writer.writeAtomic(`upload/${name}`, content);
    uploading = false;
    await polling;
    // The reader did look while the bytes were on their way...
    expect(pollsDuringUpload).toBeGreaterThan(1);
    // ...and never saw the final name with fewer bytes than the whole file.
    expect(sightings.filter((size) => size !== content.byteLength)).toEqual([]);
    // The bytes went to one temporary file in the same folder, gone once renamed.
    expect(temporaries.size).toBe(1);
    const after = (await reader.list("upload")).filter((f) => f.name.includes(name));
    expect(after).toMatchObject([{ name, size: content.byteLength }]);
    await writer.remove(`upload/${name}`);
  });

  it("after an upload killed mid-way (its partial temporary file left behind), the next attempt leaves the file once and no temporary file", async () => {
    // A Worker killed mid-upload leaves the temporary file as far as its bytes got, and cleans
    // nothing up: planted here as it would be found (half the bytes, under the file's temporary name).
    const s = await session();
    const name = `${unique()}-dispatch.csv`;
    const content = bytesOf("reference;sku;quantity\nR-3;SKU-3;1\nR-3;SKU-4;2\n");
    await s.writeAtomic(`upload/.${name}.part`, content.subarray(0, 20));
    expect((await s.list("upload")).filter((f) => f.name.includes(name)).map((f) => f.name)).toEqual([`.${name}.part`]);
    await s.writeAtomic(`upload/${name}`, content);
    const entries = (await s.list("upload")).filter((f) => f.name.includes(name));
    expect(entries.map((f) => [f.name, f.size])).toEqual([[name, content.byteLength]]);
    expect(await s.read(`upload/${name}`, 1024)).toEqual(content);
  });

  it("writing the same file twice leaves one file with the same bytes, and no temporary file", async () => {
    const s = await session();
    const name = `${unique()}-dispatch.csv`;
    const content = bytesOf("reference;sku\nR-2;SKU-2\n");
    await s.writeAtomic(`upload/${name}`, content);
    await s.writeAtomic(`upload/${name}`, content);
    const entries = (await s.list("upload")).filter((f) => f.name.includes(name));
    expect(entries.map((f) => [f.name, f.size])).toEqual([[name, content.byteLength]]);
    expect(await s.read(`upload/${name}`, 1024)).toEqual(content);
  });
});

describe("servers that behave otherwise", () => {
  it("without EPSV, and refusing to rename onto an existing file: PASV, and writeAtomic replaces the file all the same", async () => {
    const s = await session({ port: server.quirkyPort });
    const name = `${unique()}-dispatch.csv`;
    await s.writeAtomic(`upload/${name}`, bytesOf("first\n"));
    await s.writeAtomic(`upload/${name}`, bytesOf("second, longer\n"));
    const entries = (await s.list("upload")).filter((f) => f.name.includes(name));
    expect(entries.map((f) => [f.name, f.size])).toEqual([[name, 15]]);
    expect(await s.read(`upload/${name}`, 1024)).toEqual(bytesOf("second, longer\n"));
    // A plain rename onto an existing file is refused, in words.
    await s.writeAtomic(`upload/${name}.other`, bytesOf("x\n"));
    expect(await failure(s.rename(`upload/${name}.other`, `upload/${name}`))).toEqual({
      kind: "permission_denied",
      message: `the FTP server 127.0.0.1:${server.quirkyPort} refused the rename of upload/${name}.other to upload/${name}: permission denied (553 Rename refused: the target exists.)`,
      unclear: false,
    });
  });
});

describe("failures, as a kind and in words", () => {
  it("a wrong password", async () => {
    expect(await failure(ftpConnector(settings({ password: "not-the-password" })))).toEqual({
      kind: "auth",
      message: `${where} refused the login of ${server.username}: authentication failed (530 Login incorrect.)`,
      unclear: false,
    });
  });

  it("a port that refuses the connection", async () => {
    const port = Number(new URL(inject("closedPortUrl")).port);
    expect(await failure(ftpConnector(settings({ port })))).toEqual({
      kind: "refused",
      message: `the FTP server 127.0.0.1:${port} refused the connection (nothing accepts connections on port ${port})`,
      unclear: false,
    });
  });

  it("a server that accepts and never says a word: the session ends at its time box", async () => {
    const started = Date.now();
    expect(await failure(ftpConnector(settings({ port: server.silentPort, timeoutMs: 1000 })))).toEqual({
      kind: "timeout",
      message: `the FTP server 127.0.0.1:${server.silentPort} did not finish within 1000 ms: the session was ended`,
      unclear: false,
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("a server that stops answering after a command went out: timeout, and the outcome is unclear", async () => {
    const started = Date.now();
    expect(await failure(ftpConnector(settings({ port: server.mutePort, timeoutMs: 1000 })))).toEqual({
      kind: "timeout",
      message: `the FTP server 127.0.0.1:${server.mutePort} did not finish within 1000 ms (waiting for the answer to USER ${server.username}): the session was ended`,
      unclear: true,
    });
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("a folder we may not write to, a file we may not remove, and files that are not there", async () => {
    const s = await session();
    const upload = await failure(s.writeAtomic("readonly/order.csv", bytesOf("x\n")));
    expect(upload).toEqual({
      kind: "permission_denied",
      message: expect.stringMatching(new RegExp(`^${where} refused the upload of readonly/\\.order\\.csv\\.part: permission denied \\(553 Could not create file\\.\\)$`)),
      unclear: false,
    });
    expect(await failure(s.remove("readonly/existing.txt"))).toEqual({
      kind: "permission_denied",
      message: `${where} refused the removal of readonly/existing.txt: permission denied (550 Delete operation failed.)`,
      unclear: false,
    });
    expect(await failure(s.read("upload/no-such-file.csv", 1024))).toEqual({
      kind: "not_found",
      message: `${where} refused the download of upload/no-such-file.csv: no such file or directory (550 Failed to open file.)`,
      unclear: false,
    });
    expect(await failure(s.list("no-such-folder"))).toEqual({
      kind: "not_found",
      message: `${where} has no directory no-such-folder we may enter`,
      unclear: false,
    });
    // The session goes on after each refusal.
    expect((await s.list("readonly")).map((f) => f.name)).toEqual(["existing.txt"]);
  });

  it("a full disk: the server's words, and the temporary file removed", async () => {
    const s = await session();
    expect(await failure(s.writeAtomic("full/order.csv", new Uint8Array(16 * 1024 * 1024)))).toEqual({
      kind: "protocol",
      message: expect.stringMatching(new RegExp(`^${where} could not complete the upload of full/\\.order\\.csv\\.part: it failed on its side, a full disk being one cause \\(451 Failure writing to local file\\.\\)$`)),
      unclear: false,
    });
    expect(await s.list("full")).toEqual([]);
  });

  it("a server that closes the connection after a command went out: the outcome is unclear", async () => {
    expect(await failure(ftpConnector(settings({ port: server.dropPort })))).toEqual({
      kind: "protocol",
      message: `the FTP server 127.0.0.1:${server.dropPort} closed the connection without answering USER ${server.username}`,
      unclear: true,
    });
  });

  it("a name that does not resolve: said with both causes, as the runtime does not tell them apart", async () => {
    expect(await failure(ftpConnector(settings({ host: "no-such-host.invalid" })))).toEqual({
      kind: "refused",
      message: `could not connect to the FTP server no-such-host.invalid:${server.port}: the name no-such-host.invalid does not resolve, or nothing accepts connections on port ${server.port} (the Workers runtime does not tell the two apart)`,
      unclear: false,
    });
  });

  it("a file larger than the caller's limit", async () => {
    const s = await session();
    const path = `upload/${unique()}.csv`;
    await s.writeAtomic(path, new Uint8Array(2048));
    expect(await failure(s.read(path, 2047))).toEqual({
      kind: "protocol",
      message: `${path} on ${where} is larger than the limit of 2047 bytes`,
      unclear: false,
    });
    expect(await s.read(path, 2048)).toEqual(new Uint8Array(2048));
  });

  it("FTPS through the runtime's own connect(), which does not trust the test's CA: tls", async () => {
    expect(await failure(ftpConnector(settings({ protocol: "ftps" })))).toEqual({
      kind: "tls",
      message: expect.stringMatching(new RegExp(`^the TLS handshake with ${where} failed: its certificate is not trusted for 127\\.0\\.0\\.1, or no TLS version and cipher are common to both \\(`)),
      unclear: false,
    });
  });
});

describe("LIST lines (servers without MLSD)", () => {
  const now = new Date("2026-11-25T21:00:00Z");
  it("reads the Unix (ls -l) and the DOS (IIS) formats, and skips the rest", () => {
    expect(parseListLine("-rw-r--r--    1 1001     1001         1234 Nov 25 20:59 order 1.csv", now)).toEqual({ name: "order 1.csv", size: 1234, modifiedAt: "2026-11-25T20:59:00.000Z", isDirectory: false });
    // ls leaves the year out for recent dates: one ahead of now is last year's.
    expect(parseListLine("-rw-r--r--    1 ftp      ftp            7 Dec 24 10:00 old.csv", now)?.modifiedAt).toBe("2025-12-24T10:00:00.000Z");
    expect(parseListLine("drwxr-xr-x    2 ftp      ftp         4096 Mar  3  2024 archive", now)).toEqual({ name: "archive", size: 4096, modifiedAt: "2024-03-03T00:00:00.000Z", isDirectory: true });
    expect(parseListLine("lrwxrwxrwx    1 ftp      ftp           10 Nov 25 20:00 latest.csv -> order.csv", now)?.name).toBe("latest.csv");
    expect(parseListLine("11-25-26  09:40PM                 2048 answers.csv", now)).toEqual({ name: "answers.csv", size: 2048, modifiedAt: "2026-11-25T21:40:00.000Z", isDirectory: false });
    expect(parseListLine("11-25-26  12:05AM       <DIR>          done", now)).toEqual({ name: "done", size: 0, modifiedAt: "2026-11-25T00:05:00.000Z", isDirectory: true });
    expect(parseListLine("total 8", now)).toBeNull();
    expect(parseListLine("drwxr-xr-x    2 ftp      ftp         4096 Nov 25 20:00 ..", now)).toBeNull();
  });
});
