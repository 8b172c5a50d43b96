// The SFTP connector inside workerd against a real OpenSSH server (sftp-server.global.ts): what a
// caller sees, files and errors in words. Sessions start in the server's root folder: upload/ is
// the test user's, readonly/ is not.
import { describe, expect, inject, it } from "vitest";
import { connectSftp } from "../../../src/lib/file-transfer/sftp";
import { FileTransferError, type FileTransferSession, type FileTransferSettings } from "../../../src/lib/file-transfer/transfer";
import { unique } from "../../helpers/factories";

const server = inject("sftp");
const closed = new URL(inject("closedPortUrl"));

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

/** The FileTransferError `work` fails with (the test fails when it does not fail). */
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

function randomBytes(length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (let at = 0; at < length; at += 65_536) crypto.getRandomValues(out.subarray(at, Math.min(length, at + 65_536)));
  return out;
}

const sha256 = async (data: Uint8Array) => Buffer.from(await crypto.subtle.digest("SHA-256", data)).toString("hex");

describe("SFTP against a real OpenSSH server", () => {
  it("writes, lists, reads back, stats, renames and removes a file (password authentication)", async () => {
    const name = unique("orders");
    await withSession(async (sftp) => {
      await sftp.writeAtomic(`upload/${name}.csv`, bytes("reference,sku\nR-1,MUG-1\n"));
      const listed = await sftp.list("upload");
      expect(listed.filter((f) => f.name.includes(name))).toEqual([{ name: `${name}.csv`, size: 24, modifiedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), isDirectory: false }]);
      expect(text(await sftp.read(`upload/${name}.csv`, 1000))).toBe("reference,sku\nR-1,MUG-1\n");
      expect(await sftp.stat(`upload/${name}.csv`)).toMatchObject({ name: `${name}.csv`, size: 24, isDirectory: false });
      expect(await sftp.stat("upload")).toMatchObject({ name: "upload", isDirectory: true });

      await sftp.rename(`upload/${name}.csv`, `upload/${name}.done.csv`);
      expect(await sftp.stat(`upload/${name}.csv`)).toBeNull();
      expect(text(await sftp.read(`upload/${name}.done.csv`, 1000))).toBe("reference,sku\nR-1,MUG-1\n");

      await sftp.remove(`upload/${name}.done.csv`);
      expect(await sftp.stat(`upload/${name}.done.csv`)).toBeNull();
      expect((await sftp.list("upload")).filter((f) => f.name.includes(name))).toEqual([]);
    });
  });

  it.each([
    ["an Ed25519 key in OpenSSH's format", () => server.privateKey],
    ["an RSA key in OpenSSH's format", () => server.rsaPrivateKey],
    ["an RSA key as PKCS#1 PEM (BEGIN RSA PRIVATE KEY)", () => server.rsaPemPrivateKey],
  ])("signs in with %s and reads the read-only folder", async (_, key) => {
    expect(key()).toMatch(/^-----BEGIN (OPENSSH|RSA) PRIVATE KEY-----\n/);
    const files = await withSession(async (sftp) => ({ listed: await sftp.list("readonly"), stock: text(await sftp.read(`${server.root}/readonly/stock.csv`, 100)) }), {
      password: undefined,
      privateKey: key(),
    });
    expect(files.listed).toEqual([{ name: "stock.csv", size: 14, modifiedAt: expect.any(String), isDirectory: false }]);
    expect(files.stock).toBe("sku,stock\nA,1\n");
  });

  it.each([
    ["an ECDSA P-256 host key, ECDH P-256, aes256-ctr and hmac-sha2-256", "ecdsa" as const],
    ["an RSA host key (rsa-sha2-512)", "rsa" as const],
    ["an RSA host key signing rsa-sha2-256 only", "rsa256" as const],
  ])("works with a server that has %s", async (_, variant) => {
    const { port, hostKeyFingerprint } = server.variants[variant];
    const name = unique(variant);
    await withSession(
      async (sftp) => {
        await sftp.writeAtomic(`upload/${name}.csv`, bytes("a,b\n"));
        expect(text(await sftp.read(`upload/${name}.csv`, 100))).toBe("a,b\n");
        await sftp.remove(`upload/${name}.csv`);
      },
      { port, hostKeyFingerprint },
    );
  });

  it("reads a file of exactly maxBytes, and refuses one byte less", async () => {
    await withSession(async (sftp) => {
      expect((await sftp.read("readonly/stock.csv", 14)).length).toBe(14);
      expect(await failure(() => sftp.read("readonly/stock.csv", 13))).toEqual({ kind: "protocol", message: "readonly/stock.csv is larger than the 13 bytes we read at most", unclear: false });
    });
  });

  it("says a file that is not there is not found", async () => {
    await withSession(async (sftp) => {
      expect(await failure(() => sftp.read("upload/nothing-here.csv", 100))).toEqual({
        kind: "not_found",
        message: "reading upload/nothing-here.csv failed: no such file or directory (the server said: No such file)",
        unclear: false,
      });
      expect(await failure(() => sftp.list("no-such-folder"))).toMatchObject({ kind: "not_found" });
      expect(await failure(() => sftp.remove("upload/nothing-here.csv"))).toMatchObject({ kind: "not_found" });
    });
  });

  it("after an upload killed mid-way (its partial temporary file left behind), the next attempt leaves the file once and no temporary file", async () => {
    // A Worker killed mid-upload leaves the temporary file as far as its bytes got, and cleans
    // nothing up: planted here as it would be found (half the bytes, under the file's temporary name).
    const name = unique("killed");
    const content = bytes("reference,sku,quantity\nR-3,SKU-3,1\nR-3,SKU-4,2\n");
    await withSession(async (sftp) => {
      await sftp.writeAtomic(`upload/.${name}.csv.part`, content.subarray(0, 20));
      expect((await sftp.list("upload")).filter((f) => f.name.includes(name)).map((f) => f.name)).toEqual([`.${name}.csv.part`]);
      await sftp.writeAtomic(`upload/${name}.csv`, content);
      expect((await sftp.list("upload")).filter((f) => f.name.includes(name)).map((f) => [f.name, f.size])).toEqual([[`${name}.csv`, content.byteLength]]);
      expect(text(await sftp.read(`upload/${name}.csv`, 1024))).toBe(text(content));
    });
  });

  it("renaming onto a file that exists is refused in words, and both files stay", async () => {
    const name = unique("rename");
    await withSession(async (sftp) => {
      await sftp.writeAtomic(`upload/${name}-a.csv`, bytes("a"));
      await sftp.writeAtomic(`upload/${name}-b.csv`, bytes("b"));
      expect(await failure(() => sftp.rename(`upload/${name}-a.csv`, `upload/${name}-b.csv`))).toEqual({
        kind: "protocol",
        message: `renaming upload/${name}-a.csv to upload/${name}-b.csv failed: the server gave no reason (SFTP "failure"); is there a file of that name already? (the server said: Failure)`,
        unclear: false,
      });
      expect(text(await sftp.read(`upload/${name}-a.csv`, 10))).toBe("a");
      expect(text(await sftp.read(`upload/${name}-b.csv`, 10))).toBe("b");
    });
  });

  it("says permission denied for a folder the user may not write, and leaves nothing there", async () => {
    await withSession(async (sftp) => {
      const result = await failure(() => sftp.writeAtomic("readonly/order.csv", bytes("x")));
      expect(result.kind).toBe("permission_denied");
      expect(result.message).toMatch(/^writing readonly\/\.order\.csv\.part \(for readonly\/order\.csv\) failed: permission denied \(the server said: Permission denied\)$/);
      expect(await failure(() => sftp.remove("readonly/stock.csv"))).toEqual({
        kind: "permission_denied",
        message: "removing readonly/stock.csv failed: permission denied (the server said: Permission denied)",
        unclear: false,
      });
      expect((await sftp.list("readonly")).map((f) => f.name)).toEqual(["stock.csv"]);
    });
  });

  it("says the disk is full when the server's file system is, and leaves no temporary file", async () => {
    const name = unique("too-big");
    await withSession(async (sftp) => {
      const result = await failure(() => sftp.writeAtomic(`full/${name}.csv`, new Uint8Array(256 * 1024)));
      expect(result.kind).toBe("disk_full");
      expect(result.message).toMatch(
        new RegExp(`^writing full/\\.${name}\\.csv\\.part \\(for full/${name}\\.csv\\) failed: the server could not write the file, most often a full disk or quota \\(SFTP v3 says only "failure"\\) \\(the server said: Failure\\)$`),
      );
      expect(await sftp.list("full")).toEqual([]);
    });
  });

  it("writing the same file twice leaves one file with those bytes, and no temporary file", async () => {
    const name = unique("dispatch");
    const content = bytes("reference,sku,quantity\nR-2,MUG-2,3\n");
    await withSession(async (sftp) => {
      await sftp.writeAtomic(`upload/${name}.csv`, content);
      await sftp.writeAtomic(`upload/${name}.csv`, content);
      expect((await sftp.list("upload")).filter((f) => f.name.includes(name))).toEqual([{ name: `${name}.csv`, size: content.length, modifiedAt: expect.any(String), isDirectory: false }]);
      expect(await sftp.read(`upload/${name}.csv`, 1000)).toEqual(content);
      // A second write with other bytes replaces the file.
      await sftp.writeAtomic(`upload/${name}.csv`, bytes("replaced"));
      expect(text(await sftp.read(`upload/${name}.csv`, 1000))).toBe("replaced");
      expect((await sftp.list("upload")).filter((f) => f.name.includes(name)).map((f) => f.name)).toEqual([`${name}.csv`]);
    });
  });

  it("round-trips a 5 MB file byte for byte", async () => {
    const name = unique("big");
    const content = randomBytes(5 * 1024 * 1024);
    await withSession(async (sftp) => {
      await sftp.writeAtomic(`upload/${name}.bin`, content);
      expect(await sftp.stat(`upload/${name}.bin`)).toMatchObject({ size: 5 * 1024 * 1024 });
      const back = await sftp.read(`upload/${name}.bin`, 5 * 1024 * 1024);
      expect(back.length).toBe(content.length);
      expect(await sha256(back)).toBe(await sha256(content));
      await sftp.remove(`upload/${name}.bin`);
    });
  });

  it("an atomic write: a reader polling the folder never sees the final name with a partial size", async () => {
    const name = unique("atomic");
    const content = randomBytes(4 * 1024 * 1024);
    const reader = await connectSftp(settings({ privateKey: server.privateKey, password: undefined }));
    const seen: { name: string; size: number }[] = [];
    let writing = true;
    let polls = 0;
    const poll = (async () => {
      while (writing) {
        polls++;
        for (const f of await reader.list("upload")) if (f.name.includes(name)) seen.push({ name: f.name, size: f.size });
      }
    })();
    try {
      await withSession((sftp) => sftp.writeAtomic(`upload/${name}.bin`, content));
    } finally {
      writing = false;
      await poll;
      await reader.close();
    }
    const final = seen.filter((f) => f.name === `${name}.bin`);
    const partial = seen.filter((f) => f.size < content.length);
    // The reader looked while the file was being written (it saw the temporary file grow)...
    expect(polls).toBeGreaterThan(2);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial.every((f) => f.name !== `${name}.bin`)).toBe(true);
    // ...and whenever it saw the final name, the whole file was there.
    expect(final.every((f) => f.size === content.length)).toBe(true);
  });
});

describe("SFTP failures in words", () => {
  it("a wrong password is an authentication failure", async () => {
    expect(await failure(() => connectSftp(settings({ password: "not-the-password" })))).toEqual({
      kind: "auth",
      message: `${server.host}:${server.port} refused the password of user ${server.username} (authentication failed; the server accepts: publickey, password)`,
      unclear: false,
    });
  });

  it("a host key that is not the pinned one is refused before anything is sent to authenticate", async () => {
    const pinned = "SHA256:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA";
    // A user name of its own: sshd logs it as soon as a client tries to authenticate as it.
    const username = unique("pinned-probe");
    expect(await failure(() => connectSftp(settings({ username, hostKeyFingerprint: pinned })))).toEqual({
      kind: "host_key_mismatch",
      message: `the host key of ${server.host}:${server.port} is ${server.hostKeyFingerprint} (ssh-ed25519), not the pinned ${pinned}: refused before authenticating (the server changed its key, or someone is in between)`,
      unclear: false,
    });
    // With the right key the same user name does reach sshd (and is refused): the log can tell.
    const control = unique("pinned-control");
    expect(await failure(() => connectSftp(settings({ username: control })))).toMatchObject({ kind: "auth" });
    const log = await (await fetch(`${server.logUrl}/`)).text();
    expect(log).toContain(`Invalid user ${control} from`);
    expect(log).not.toContain(username);
  });

  it("a port nothing listens on is refused", async () => {
    expect(await failure(() => connectSftp(settings({ port: Number(closed.port) })))).toEqual({
      kind: "refused",
      message: `the connection to ${server.host}:${closed.port} was refused: nothing listens on port ${closed.port} there`,
      unclear: false,
    });
  });

  it("a server that takes passwords by keyboard-interactive only: the right one signs in, a wrong one is refused", async () => {
    const { port, hostKeyFingerprint } = server.variants.keyboard;
    expect(await withSession((sftp) => sftp.list("readonly"), { port, hostKeyFingerprint })).toMatchObject([{ name: "stock.csv" }]);
    expect(await failure(() => connectSftp(settings({ port, hostKeyFingerprint, password: "not-the-password" })))).toEqual({
      kind: "auth",
      message: `${server.host}:${port} refused the password (keyboard-interactive) of user ${server.username} (authentication failed; the server accepts: publickey, keyboard-interactive)`,
      unclear: false,
    });
  });

  it("a key the server does not know is refused as authentication", async () => {
    // A fresh Ed25519 key, as PKCS#8 PEM (BEGIN PRIVATE KEY): readable, but not authorized.
    const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const pkcs8 = Buffer.from((await crypto.subtle.exportKey("pkcs8", pair.privateKey)) as ArrayBuffer).toString("base64");
    const privateKey = `-----BEGIN PRIVATE KEY-----\n${pkcs8}\n-----END PRIVATE KEY-----\n`;
    expect(await failure(() => connectSftp(settings({ password: undefined, privateKey })))).toEqual({
      kind: "auth",
      message: `${server.host}:${server.port} refused the key of user ${server.username} (authentication failed; the server accepts: publickey, password)`,
      unclear: false,
    });
  });

  it("a key with a passphrase is refused before connecting, saying how to remove it", async () => {
    expect(await failure(() => connectSftp(settings({ password: undefined, privateKey: server.passphraseProtectedKey })))).toEqual({
      kind: "auth",
      message: "cannot use the private key: the private key is protected by a passphrase, which we do not support: remove it with ssh-keygen -p -N '' -f <file>",
      unclear: false,
    });
  });

  it("a server with no cipher in common says which it offers", async () => {
    const { port, hostKeyFingerprint } = server.variants.chacha;
    expect(await failure(() => connectSftp(settings({ port, hostKeyFingerprint })))).toEqual({
      kind: "protocol",
      message: `${server.host}:${port} supports no cipher we do (it offers chacha20-poly1305@openssh.com; we offer aes128-ctr, aes256-ctr)`,
      unclear: false,
    });
  });

  it("the pinned fingerprint of another key type is a mismatch that names the type shown", async () => {
    const { port } = server.variants.rsa;
    expect(await failure(() => connectSftp(settings({ port })))).toEqual({
      kind: "host_key_mismatch",
      message: `the host key of ${server.host}:${port} is ${server.variants.rsa.hostKeyFingerprint} (ssh-rsa), not the pinned ${server.hostKeyFingerprint}: refused before authenticating (the server changed its key, or someone is in between)`,
      unclear: false,
    });
  });

  it("a server of another protocol (a web server on that port) is not an SSH server, in words", async () => {
    const web = new URL(inject("fakeRemoteUrl"));
    expect(await failure(() => connectSftp(settings({ port: Number(web.port) })))).toEqual({
      kind: "protocol",
      message: `${server.host}:${web.port} is not an SSH server (it said "HTTP/1.1 400 Bad Request"): is ${web.port} its SFTP port?`,
      unclear: false,
    });
  });

  it("a host name that does not resolve is a DNS failure", async () => {
    expect(await failure(() => connectSftp(settings({ host: "sftp.invalid" })))).toEqual({
      kind: "dns",
      message: "the host name sftp.invalid does not resolve (DNS)",
      unclear: false,
    });
  });

  it("a server that accepts and never answers is given up at the session's time box", async () => {
    const started = Date.now();
    expect(await failure(() => connectSftp(settings({ port: server.hangPort, timeoutMs: 1500 })))).toEqual({
      kind: "timeout",
      message: `${server.host}:${server.hangPort} did not answer within the session's 1500 ms (waiting for the SSH greeting)`,
      unclear: false,
    });
    expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it("a connection lost in the middle of an upload: the write is unclear, and the session over", async () => {
    const name = unique("cut");
    const session = await connectSftp(settings({ port: server.cutPort }));
    try {
      const result = await failure(() => session.writeAtomic(`upload/${name}.bin`, new Uint8Array(2 * 1024 * 1024)));
      expect(result.kind).toBe("protocol");
      expect(result.unclear).toBe(true);
      expect(result.message).toMatch(
        new RegExp(`^the connection to ${server.host}:${server.cutPort} was lost \\(waiting for the answer to writing upload/\\.${name}\\.bin\\.part \\(for upload/${name}\\.bin\\)\\); writing .* may or may not have happened$`),
      );
      expect(await failure(() => session.list("upload"))).toMatchObject({ kind: "protocol", unclear: false });
    } finally {
      await session.close();
    }
    // Nothing under the final name: the half-written file stayed under its temporary one.
    expect(await withSession((sftp) => sftp.stat(`upload/${name}.bin`))).toBeNull();
  });

  it("an operation still waiting when the session's time is up fails as timeout, and unclear", async () => {
    const name = unique("late");
    const started = Date.now();
    const session = await connectSftp(settings({ timeoutMs: 2000 }));
    try {
      // Megabyte after megabyte until the time box ends the session in the middle of one.
      const result = await failure(async () => {
        for (let i = 0; ; i++) await session.writeAtomic(`upload/${name}-${i}.bin`, new Uint8Array(1024 * 1024));
      });
      expect(result).toMatchObject({ kind: "timeout", unclear: true });
      // Whichever request of the upload was waiting (a write, the close, the rename) is named.
      expect(result.message).toMatch(new RegExp(`^${server.host}:${server.port} did not answer within the session's 2000 ms \\(waiting for the answer to (writing|renaming) upload/\\.${name}-\\d+\\.bin\\.part .+\\); .+ may or may not have happened$`));
      expect(Date.now() - started).toBeLessThan(4000);
      // The session is over: what comes next fails at once.
      expect(await failure(() => session.list("upload"))).toMatchObject({ kind: "timeout", unclear: false });
    } finally {
      await session.close();
    }
  });
});
