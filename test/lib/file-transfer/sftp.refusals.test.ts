// What the SFTP connector refuses, in words, against real OpenSSH servers (sftp-server.global.ts):
// servers offering only weak algorithms (one kind each), a weak RSA host key, and a server whose
// host key is not the pinned one. ProFTPD's are in sftp.proftpd.test.ts.
import { describe, expect, inject, it } from "vitest";
import { connectSftp } from "../../../src/lib/file-transfer/sftp";
import { FileTransferError, type FileTransferSettings } from "../../../src/lib/file-transfer/transfer";
import { unique } from "../../helpers/factories";

const server = inject("sftp");

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

async function failure(work: () => Promise<unknown>): Promise<{ kind: string; message: string; unclear: boolean }> {
  try {
    await work();
  } catch (error) {
    if (!(error instanceof FileTransferError)) throw error;
    return { kind: error.kind, message: error.message, unclear: error.unclear };
  }
  throw new Error("expected a FileTransferError");
}

describe("SFTP refuses weak servers and changed host keys, in words (real OpenSSH)", () => {
  it.each([
    [
      "SHA-1 key exchange only",
      "kex" as const,
      "supports no key exchange we do (it offers diffie-hellman-group14-sha1, diffie-hellman-group1-sha1; we offer curve25519-sha256, curve25519-sha256@libssh.org, ecdh-sha2-nistp256): all it offers is weak (SHA-1 key exchange), which we refuse",
    ],
    [
      "ssh-rsa (RSA with SHA-1) host key signatures only",
      "hostKey" as const,
      "supports no host key type we do (it offers ssh-rsa; we offer ssh-ed25519, ecdsa-sha2-nistp256, rsa-sha2-512, rsa-sha2-256): all it offers is weak (RSA signatures with SHA-1), which we refuse",
    ],
    ["CBC ciphers only", "cipher" as const, "supports no cipher we do (it offers aes128-cbc, aes256-cbc, 3des-cbc; we offer aes128-ctr, aes256-ctr): all it offers is weak (CBC cipher), which we refuse"],
    [
      "SHA-1 and MD5 MACs only",
      "mac" as const,
      "supports no MAC we do (it offers hmac-sha1, hmac-sha1-etm@openssh.com, hmac-md5; we offer hmac-sha2-256-etm@openssh.com, hmac-sha2-256): all it offers is weak (HMAC with SHA-1, HMAC with MD5), which we refuse",
    ],
  ])("a server offering %s", async (_, kind, refusal) => {
    const { port, hostKeyFingerprint } = server.weak[kind];
    expect(await failure(() => connectSftp(settings({ port, hostKeyFingerprint })))).toEqual({ kind: "protocol", message: `${server.host}:${port} ${refusal}`, unclear: false });
  });

  it("a 1024-bit RSA host key is refused as weak, even when pinned", async () => {
    const { port, hostKeyFingerprint } = server.weak.shortRsa;
    expect(await failure(() => connectSftp(settings({ port, hostKeyFingerprint })))).toEqual({
      kind: "protocol",
      message: `${server.host}:${port} showed an RSA host key of 1024 bits; we refuse RSA keys under 2048 bits as weak: refused before authenticating`,
      unclear: false,
    });
  });

  it("a real server with another key than the pinned one (the key changed) is refused before the user name is sent", async () => {
    // The keyboard-interactive sshd is another server with its own Ed25519 key: as if the supplier's had been replaced.
    const { port, hostKeyFingerprint } = server.variants.keyboard;
    const username = unique("changed-key-probe");
    expect(await failure(() => connectSftp(settings({ port, username })))).toEqual({
      kind: "host_key_mismatch",
      message: `the host key of ${server.host}:${port} is ${hostKeyFingerprint} (ssh-ed25519), not the pinned ${server.hostKeyFingerprint}: refused before authenticating (the server changed its key, or someone is in between)`,
      unclear: false,
    });
    const log = await (await fetch(`${server.logUrl}/`)).text();
    expect(log).not.toContain(username);
  });
});
