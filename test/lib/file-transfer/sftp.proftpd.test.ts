// The SFTP connector inside workerd against a second SSH implementation, ProFTPD's mod_sftp
// (proftpd-sftp.global.ts): the operations the file channel, the answer files and the feeds use,
// as against OpenSSH in sftp.test.ts, with a password and with a key; and its refusals.
import { describe, expect, inject, it } from "vitest";
import { connectSftp } from "../../../src/lib/file-transfer/sftp";
import { FileTransferError, type FileTransferSession, type FileTransferSettings } from "../../../src/lib/file-transfer/transfer";
import { unique } from "../../helpers/factories";

const server = inject("proftpdSftp");
const openssh = inject("sftp");

const settings = (overrides: Partial<FileTransferSettings> = {}): FileTransferSettings => ({
  protocol: "sftp",
  host: server.host,
  port: server.port,
  username: server.username,
  password: server.password,
  hostKeyFingerprint: server.hostKeyFingerprint,
  timeoutMs: 20_000,
  ...overrides,
});

async function withSession<T>(work: (session: FileTransferSession) => Promise<T>, overrides: Partial<FileTransferSettings> = {}): Promise<T> {
  const session = await connectSftp(settings(overrides));
  try {
    return await work(session);
  } finally {
    await session.close();
  }
}

async function failure(work: () => Promise<unknown>): Promise<{ kind: string; message: string; unclear: boolean }> {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof FileTransferError)) throw error;
    return { kind: error.kind, message: error.message, unclear: error.unclear };
  }
  throw new Error("expected a FileTransferError");
}

const bytes = (text: string) => new TextEncoder().encode(text);
const text = (data: Uint8Array) => new TextDecoder().decode(data);

describe("SFTP against ProFTPD's mod_sftp (a second SSH implementation)", () => {
  it.each([
    ["a password", { password: server.password }],
    ["an Ed25519 key", { password: undefined, privateKey: server.privateKey }],
  ])("signs in with %s: writes atomically, lists, reads, stats, archives and removes", async (_, login) => {
    const name = unique("proftpd");
    await withSession(async (sftp) => {
      await sftp.writeAtomic(`upload/${name}.csv`, bytes("reference,sku\nR-1,MUG-1\n"));
      expect((await sftp.list("upload")).filter((f) => f.name.includes(name))).toEqual([{ name: `${name}.csv`, size: 24, modifiedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), isDirectory: false }]);
      expect(text(await sftp.read(`upload/${name}.csv`, 1000))).toBe("reference,sku\nR-1,MUG-1\n");
      expect(await sftp.stat(`upload/${name}.csv`)).toMatchObject({ name: `${name}.csv`, size: 24, isDirectory: false });
      expect(await sftp.stat("upload")).toMatchObject({ name: "upload", isDirectory: true });
      // Writing the same name again replaces it, leaving no temporary file.
      await sftp.writeAtomic(`upload/${name}.csv`, bytes("replaced"));
      expect(text(await sftp.read(`upload/${name}.csv`, 1000))).toBe("replaced");
      expect((await sftp.list("upload")).filter((f) => f.name.includes(name)).map((f) => f.name)).toEqual([`${name}.csv`]);
      // Archived as an answer file is.
      await sftp.rename(`upload/${name}.csv`, `upload/${name}.done.csv`);
      expect(await sftp.stat(`upload/${name}.csv`)).toBeNull();
      expect(text(await sftp.read(`upload/${name}.done.csv`, 1000))).toBe("replaced");
      await sftp.remove(`upload/${name}.done.csv`);
      expect((await sftp.list("upload")).filter((f) => f.name.includes(name))).toEqual([]);
      expect(await sftp.list("readonly")).toEqual([{ name: "stock.csv", size: 14, modifiedAt: expect.any(String), isDirectory: false }]);
    }, login);
  });

  it("round-trips 5 MB byte for byte, and refuses a read one byte under a file's size", async () => {
    const name = unique("proftpd-big");
    const content = new Uint8Array(5 * 1024 * 1024);
    for (let at = 0; at < content.length; at += 65_536) crypto.getRandomValues(content.subarray(at, at + 65_536));
    await withSession(async (sftp) => {
      await sftp.writeAtomic(`upload/${name}.bin`, content);
      expect(await sftp.read(`upload/${name}.bin`, content.length)).toEqual(content);
      expect(await failure(() => sftp.read("readonly/stock.csv", 13))).toEqual({ kind: "protocol", message: "readonly/stock.csv is larger than the 13 bytes we read at most", unclear: false });
      await sftp.remove(`upload/${name}.bin`);
    });
  });

  it("says not found and permission denied in words", async () => {
    await withSession(async (sftp) => {
      expect(await failure(() => sftp.read("upload/nothing-here.csv", 100))).toMatchObject({ kind: "not_found", message: expect.stringMatching(/^reading upload\/nothing-here\.csv failed: no such file or directory/) });
      expect(await failure(() => sftp.remove("readonly/stock.csv"))).toMatchObject({ kind: "permission_denied", message: expect.stringMatching(/^removing readonly\/stock\.csv failed: permission denied/) });
      expect(await sftp.list("readonly")).toMatchObject([{ name: "stock.csv" }]);
    });
  });

  it("a wrong password is an authentication failure", async () => {
    expect(await failure(() => connectSftp(settings({ password: "not-the-password" })))).toEqual({
      kind: "auth",
      message: `${server.host}:${server.port} refused the password of user ${server.username} (authentication failed; the server accepts: publickey, password)`,
      unclear: false,
    });
  });

  it("a server whose host key changed (another key than the one pinned) is refused before authenticating", async () => {
    const result = await failure(() => connectSftp(settings({ hostKeyFingerprint: openssh.hostKeyFingerprint })));
    expect(result).toEqual({
      kind: "host_key_mismatch",
      message: `the host key of ${server.host}:${server.port} is ${server.hostKeyFingerprint} (ssh-ed25519), not the pinned ${openssh.hostKeyFingerprint}: refused before authenticating (the server changed its key, or someone is in between)`,
      unclear: false,
    });
  });

  it("a ProFTPD offering only weak algorithms is refused, naming them", async () => {
    expect(await failure(() => connectSftp(settings({ port: server.weakPort })))).toEqual({
      kind: "protocol",
      message: `${server.host}:${server.weakPort} supports no key exchange we do (it offers diffie-hellman-group14-sha1, diffie-hellman-group1-sha1; we offer curve25519-sha256, curve25519-sha256@libssh.org, ecdh-sha2-nistp256): all it offers is weak (SHA-1 key exchange), which we refuse`,
      unclear: false,
    });
  });
});
