// The FTP/FTPS connector against two more implementations than vsftpd (ftp.test.ts): Debian's
// Pure-FTPd and ProFTPD with mod_tls, started by test/lib/file-transfer/ftp-servers.global.ts. The
// same operations as on vsftpd, over FTP and explicit FTPS: list, the atomic upload (a temporary
// name, then the rename), read, stat, rename into an archive folder, remove, refusals in words, and
// the supplier's settings' test through the API. Both servers offer MLSD and MLST, which vsftpd does
// not: listings and stat go through them here.
import { env } from "cloudflare:workers";
import { afterEach, describe, expect, inject, it } from "vitest";
import { createFtpConnector, ftpConnector, type SocketOpener } from "../../../src/lib/file-transfer/ftp";
import { FileTransferError, type FileTransferSession, type FileTransferSettings } from "../../../src/lib/file-transfer/transfer";
import { createAccount } from "../../helpers/factories";
import { call } from "../../helpers/http";

const others = inject("ftpOthers");
// FTPS goes out through a network that trusts the test's throwaway CA (vitest.config.ts).
const trusting: SocketOpener = (address, options) => env.FTP_TEST_NETWORK.connect(address, options);
const ftpsConnector = createFtpConnector(trusting);

const open: FileTransferSession[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

const bytesOf = (text: string) => new TextEncoder().encode(text);
const unique = () => crypto.randomUUID().slice(0, 8);

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
  ["Pure-FTPd", "pureftpd"],
  ["ProFTPD", "proftpd"],
] as const)("%s", (label, key) => {
  const server = others[key];
  const where = `the FTP server ${server.host}:${server.port}`;
  const settings = (over: Partial<FileTransferSettings> = {}): FileTransferSettings => ({ protocol: "ftp", host: server.host, port: server.port, username: server.username, password: server.password, timeoutMs: 20_000, ...over });
  async function session(protocol: "ftp" | "ftps") {
    const s = await (protocol === "ftps" ? ftpsConnector : ftpConnector)(settings({ protocol }));
    open.push(s);
    return s;
  }

  describe.each(["ftp", "ftps"] as const)(`over %s`, (protocol) => {
    it("writes atomically, lists, reads back, stats, archives and removes a file", async () => {
      const s = await session(protocol);
      const name = `${unique()}-order.csv`;
      const content = bytesOf("reference;sku;quantity\nR-1;SKU-1;2\n");
      await s.writeAtomic(`upload/${name}`, content);

      const listed = await s.list("upload");
      // One file of that name, and no temporary file left beside it (the listing shows dot files).
      expect(listed.filter((f) => f.name.includes(name)).map((f) => [f.name, f.size, f.isDirectory])).toEqual([[name, content.byteLength, false]]);
      const entry = listed.find((f) => f.name === name)!;
      expect(Math.abs(Date.parse(entry.modifiedAt!) - Date.now())).toBeLessThan(120_000);
      expect(await s.read(`upload/${name}`, content.byteLength)).toEqual(content);

      const stat = await s.stat(`upload/${name}`);
      expect(stat).toMatchObject({ name, size: content.byteLength, isDirectory: false });
      expect(Math.abs(Date.parse(stat!.modifiedAt!) - Date.now())).toBeLessThan(120_000);
      expect(await s.stat("upload")).toMatchObject({ name: "upload", isDirectory: true });
      expect(await s.stat(`upload/${name}.missing`)).toBeNull();

      // Writing the same name again replaces it: one file, the new bytes.
      const again = bytesOf("reference;sku;quantity\nR-1;SKU-1;3\nR-1;SKU-2;1\n");
      await s.writeAtomic(`upload/${name}`, again);
      expect((await s.list("upload")).filter((f) => f.name.includes(name)).map((f) => [f.name, f.size])).toEqual([[name, again.byteLength]]);

      // Archived as the answer-file reader does: renamed into another folder, then removed.
      const archived = `archive/${name}`;
      await s.rename(`upload/${name}`, archived);
      expect(await s.stat(`upload/${name}`)).toBeNull();
      expect(await s.read(archived, 1024)).toEqual(again);
      await s.remove(archived);
      expect(await s.stat(archived)).toBeNull();
    });

    it("reads and writes bytes exactly, in binary", async () => {
      const s = await session(protocol);
      const content = new Uint8Array(300_000).map((_, i) => (i * 7919) % 256);
      content.set(bytesOf("\r\n\n\r"), 1000);
      const path = `upload/${unique()}.bin`;
      await s.writeAtomic(path, content);
      expect(await s.read(path, content.byteLength)).toEqual(content);
      expect(await failure(s.read(path, content.byteLength - 1))).toEqual({ kind: "protocol", message: `${path} on ${where} is larger than the limit of ${content.byteLength - 1} bytes`, unclear: false });
    });

    it("refusals, as a kind and in words; the session goes on after each", async () => {
      const s = await session(protocol);
      const upload = await failure(s.writeAtomic("readonly/order.csv", bytesOf("x\n")));
      expect(upload.kind).toBe("permission_denied");
      expect(upload.message).toMatch(new RegExp(`^${where} refused the upload of readonly/\\.order\\.csv\\.part: permission denied \\(55[03] `));
      const removal = await failure(s.remove("readonly/existing.txt"));
      expect(removal.kind).toBe("permission_denied");
      expect(removal.message).toMatch(new RegExp(`^${where} refused the removal of readonly/existing\\.txt: permission denied \\(55[03] `));
      const missing = await failure(s.read("upload/no-such-file.csv", 1024));
      expect(missing.kind).toBe("not_found");
      expect(missing.message).toMatch(new RegExp(`^${where} refused the download of upload/no-such-file\\.csv: no such file or directory \\(550 `));
      expect(await failure(s.list("no-such-folder"))).toEqual({ kind: "not_found", message: `${where} has no directory no-such-folder we may enter`, unclear: false });
      expect((await s.list("readonly")).map((f) => f.name)).toEqual(["existing.txt"]);
    });
  });

  it("a wrong password", async () => {
    const wrong = await failure(ftpConnector(settings({ password: "not-the-password" })));
    expect(wrong.kind).toBe("auth");
    expect(wrong.message).toMatch(new RegExp(`^${where} refused the login of ${server.username}: authentication failed \\(530 `));
  });

  it("the supplier's settings' test through the API: every check passes", async () => {
    const creds = await createAccount();
    const created = await call("POST", "/api/v1/suppliers", {
      creds,
      body: { name: `${label} ${unique()}`, channel: "file", file_transfer: { protocol: "ftp", host: server.host, port: server.port, username: server.username, password: server.password, directory: "upload", inbound: { directory: "readonly" } } },
    });
    expect(created.status).toBe(201);
    const res = await call("POST", `/api/v1/suppliers/${created.json.id}/file-transfer/test`, { creds });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({
      ok: true,
      checks: [
        { name: "connect", ok: true, message: `connected to ftp://${server.host}:${server.port} as ${server.username}` },
        { name: "list", ok: true, message: expect.stringMatching(/^\d+ entries in upload$/) },
        { name: "write", ok: true, message: expect.stringMatching(/^wrote upload\/order-intake-probe-[0-9a-f-]{36}\.txt$/) },
        { name: "delete", ok: true, message: expect.stringMatching(/^deleted upload\/order-intake-probe-[0-9a-f-]{36}\.txt$/) },
        { name: "list_inbound", ok: true, message: "1 entry in readonly" },
      ],
      // FTP has no host key (SFTP's test shows the one its server holds).
      host_key: null,
    });
    await call("PATCH", `/api/v1/suppliers/${created.json.id}`, { creds, body: { active: false } });
  });
});
