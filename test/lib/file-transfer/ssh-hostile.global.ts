// vitest globalSetup: hostile "SSH servers" on loopback for the SFTP connector's tests
// (sftp.hostile.test.ts): each port sends one kind of malformed greeting or packet, as a broken or
// malicious server would, and keeps the connection open, so a client that waited for more would
// hang until its time box. What a real server can be configured to do (weak algorithms, another
// host key) is tried against real ones (sftp-server.global.ts, proftpd-sftp.global.ts); these are
// what no real server sends.
import { createHash, createPublicKey, generateKeyPairSync } from "node:crypto";
import net from "node:net";
import type { TestProject } from "vitest/node";

const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n >>> 0);
  return b;
};
const str = (s: string | Buffer) => {
  const bytes = typeof s === "string" ? Buffer.from(s) : s;
  return Buffer.concat([u32(bytes.length), bytes]);
};
/** An unencrypted binary packet (RFC 4253 §6), padded to blocks of 8 with at least 4 bytes. */
const packet = (payload: Buffer) => {
  let padding = 8 - ((5 + payload.length) % 8);
  if (padding < 4) padding += 8;
  return Buffer.concat([u32(1 + payload.length + padding), Buffer.from([padding]), payload, Buffer.alloc(padding)]);
};
/** A KEXINIT offering what our client takes (message 20). */
const kexInit = (lists = ["curve25519-sha256", "ssh-ed25519", "aes128-ctr", "aes128-ctr", "hmac-sha2-256", "hmac-sha2-256", "none", "none", "", ""]) =>
  packet(Buffer.concat([Buffer.from([20]), Buffer.alloc(16), ...lists.map((l) => str(l)), Buffer.from([0]), u32(0)]));

const BANNER = "SSH-2.0-Hostile_1.0\r\n";

/** A real-looking Ed25519 host key blob whose fingerprint the test pins, and a real X25519 value: the signature alone is wrong. */
function badSignatureReply() {
  const host = generateKeyPairSync("ed25519");
  const hostRaw = Buffer.from(host.publicKey.export({ format: "jwk" }).x ?? "", "base64url");
  const hostKeyBlob = Buffer.concat([str("ssh-ed25519"), str(hostRaw)]);
  const ephemeral = generateKeyPairSync("x25519");
  const ephemeralRaw = Buffer.from(createPublicKey(ephemeral.privateKey).export({ format: "jwk" }).x ?? "", "base64url");
  const signature = Buffer.concat([str("ssh-ed25519"), str(Buffer.alloc(64, 7))]);
  const fingerprint = `SHA256:${createHash("sha256").update(hostKeyBlob).digest("base64").replace(/=+$/, "")}`;
  return { fingerprint, reply: packet(Buffer.concat([Buffer.from([31]), str(hostKeyBlob), str(ephemeralRaw), str(signature)])) };
}

export default async function setup(project: TestProject) {
  const signed = badSignatureReply();
  // What each server sends as soon as a client connects (then it says nothing more).
  const scenarios: Record<string, Buffer> = {
    // A "version line" of 100 KB without an end.
    overlongBanner: Buffer.from(`SSH-2.0-${"x".repeat(100_000)}`),
    // A version line that never ends: the client waits for its end, at most until its time box.
    bannerWithoutEnd: Buffer.from("SSH-2.0-Hostile_1.0"),
    // Lines before the version line, and more of them than RFC 4253 lets a client wait through.
    endlessPreBanner: Buffer.from("Welcome to our server\r\n".repeat(2_000)),
    sshOne: Buffer.from("SSH-1.5-Hostile\r\n"),
    zeroLength: Buffer.concat([Buffer.from(BANNER), u32(0), Buffer.alloc(64)]),
    hugeLength: Buffer.concat([Buffer.from(BANNER), u32(2 ** 32 - 1), Buffer.alloc(64)]),
    paddingPastPacket: Buffer.concat([Buffer.from(BANNER), u32(12), Buffer.from([200]), Buffer.alloc(11)]),
    truncatedKexInit: Buffer.concat([Buffer.from(BANNER), packet(Buffer.concat([Buffer.from([20]), Buffer.alloc(16), u32(1000), Buffer.from("curve")]))]),
    hugeNameList: Buffer.concat([
      Buffer.from(BANNER),
      kexInit([Array.from({ length: 20_000 }, (_, i) => `kex-${i}@hostile`).join(","), "ssh-ed25519", "aes128-ctr", "aes128-ctr", "hmac-sha2-256", "hmac-sha2-256", "none", "none", "", ""]),
    ]),
    hostKeyPastReply: Buffer.concat([Buffer.from(BANNER), kexInit(), packet(Buffer.concat([Buffer.from([31]), u32(2 ** 32 - 1), Buffer.alloc(40)]))]),
    badSignature: Buffer.concat([Buffer.from(BANNER), kexInit(), signed.reply]),
    // A DISCONNECT (message 1) whose reason is 100 KB of control characters.
    longDisconnect: Buffer.concat([Buffer.from(BANNER), packet(Buffer.concat([Buffer.from([1]), u32(2), str(Buffer.alloc(100_000, 7)), str("")]))]),
  };
  const held: net.Socket[] = [];
  const servers: net.Server[] = [];
  const ports: Record<string, number> = {};
  for (const [name, bytes] of Object.entries(scenarios)) {
    const server = net.createServer((socket) => {
      held.push(socket);
      socket.on("error", () => undefined);
      socket.write(bytes);
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const address = server.address();
    ports[name] = typeof address === "object" && address ? address.port : 0;
    servers.push(server);
  }
  project.provide("sshHostile", { host: "127.0.0.1", ports, badSignatureFingerprint: signed.fingerprint });
  return async () => {
    for (const socket of held) socket.destroy();
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  };
}
