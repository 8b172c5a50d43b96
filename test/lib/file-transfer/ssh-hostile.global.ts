// vitest globalSetup: hostile "SSH servers" on loopback for the SFTP connector's tests
// (sftp.hostile.test.ts): each port sends one kind of malformed greeting or packet, as a broken or
// malicious server would, and keeps the connection open, so a client that waited for more would
// hang until its time box. What a real server can be configured to do (weak algorithms, another
// host key) is tried against real ones (sftp-server.global.ts, proftpd-sftp.global.ts); these are
// what no real server sends.
import { createCipheriv, createDecipheriv, createHash, createHmac, createPublicKey, diffieHellman, generateKeyPairSync, sign } from "node:crypto";
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
  const sftpPorts: Record<string, number> = {};
  const sftpFingerprints: Record<string, string> = {};
  for (const [name, scenario] of Object.entries(SFTP_SCENARIOS)) {
    const { server, fingerprint } = hostileSftpServer(scenario);
    server.on("connection", (socket) => held.push(socket));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const address = server.address();
    sftpPorts[name] = typeof address === "object" && address ? address.port : 0;
    servers.push(server);
    sftpFingerprints[name] = fingerprint;
  }
  project.provide("sshHostile", { host: "127.0.0.1", ports, badSignatureFingerprint: signed.fingerprint, sftpPorts, sftpFingerprints });
  return async () => {
    for (const socket of held) socket.destroy();
    await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
  };
}

// ---- A hostile SFTP server: a real SSH handshake, then malformed SFTP replies ----
// The smallest SSH server our client completes a session with (curve25519-sha256, ssh-ed25519,
// aes128-ctr with hmac-sha2-256-etm@openssh.com; any user and password are taken), so that the
// SFTP replies, which travel encrypted, can be hostile too.

type SftpReply = (type: number, id: number) => Buffer | null;

const sftpPacket = (...parts: Buffer[]) => {
  const body = Buffer.concat(parts);
  return Buffer.concat([u32(body.length), body]);
};
const byte = (n: number) => Buffer.from([n]);

/** What each hostile SFTP server answers (INIT is answered with VERSION 3 unless said otherwise). */
const SFTP_SCENARIOS: Record<string, { version?: Buffer; reply: SftpReply }> = {
  // OPENDIR gets a handle; READDIR a NAME whose count is 2^32-1 with one entry.
  nameCountPastData: {
    reply: (type, id) =>
      type === 11
        ? sftpPacket(byte(102), u32(id), str("h"))
        : type === 12
          ? sftpPacket(byte(104), u32(id), u32(2 ** 32 - 1), str("a.csv"), str("-rw-r--r-- a.csv"), u32(0))
          : sftpPacket(byte(101), u32(id), u32(0)),
  },
  // Every request: a STATUS whose message's length runs past the packet.
  statusPastData: { reply: (_, id) => sftpPacket(byte(101), u32(id), u32(2), u32(100_000), Buffer.from("No such")) },
  // Every request: an SFTP length of 2^32-1.
  hugeSftpPacket: { reply: () => Buffer.concat([u32(2 ** 32 - 1), Buffer.alloc(16)]) },
  // VERSION without its version number.
  versionCutShort: { version: sftpPacket(byte(2)), reply: () => null },
};

function hostileSftpServer(scenario: { version?: Buffer; reply: SftpReply }): { server: net.Server; fingerprint: string } {
  const host = generateKeyPairSync("ed25519");
  const hostKeyBlob = Buffer.concat([str("ssh-ed25519"), str(Buffer.from(host.publicKey.export({ format: "jwk" }).x ?? "", "base64url"))]);
  const fingerprint = `SHA256:${createHash("sha256").update(hostKeyBlob).digest("base64").replace(/=+$/, "")}`;
  const server = net.createServer((socket) => {
    socket.on("error", () => undefined);
    const serverVersion = "SSH-2.0-HostileSftp_1.0";
    const serverKexInit = Buffer.concat([byte(20), Buffer.alloc(16), ...["curve25519-sha256", "ssh-ed25519", "aes128-ctr", "aes128-ctr", "hmac-sha2-256-etm@openssh.com", "hmac-sha2-256-etm@openssh.com", "none", "none", "", ""].map((l) => str(l)), byte(0), u32(0)]);
    let sendSeq = 0;
    let keys: { out: ReturnType<typeof createCipheriv>; in: ReturnType<typeof createDecipheriv>; outMac: Buffer } | null = null;
    const send = (payload: Buffer) => {
      if (!keys) {
        socket.write(packet(payload));
      } else {
        let padding = 16 - ((1 + payload.length) % 16);
        if (padding < 4) padding += 16;
        const body = Buffer.concat([byte(padding), payload, Buffer.alloc(padding)]);
        const length = u32(body.length);
        const encrypted = keys.out.update(body);
        const mac = createHmac("sha256", keys.outMac).update(u32(sendSeq)).update(length).update(encrypted).digest();
        socket.write(Buffer.concat([length, encrypted, mac]));
      }
      sendSeq++;
    };
    socket.write(`${serverVersion}\r\n`);
    send(serverKexInit);

    let buffered = Buffer.alloc(0);
    let clientVersion: string | null = null;
    let clientKexInit: Buffer | null = null;
    let secret: Buffer | null = null;
    let exchangeHash: Buffer | null = null;
    let clientChannel = 0;
    let sftpIn = Buffer.alloc(0);

    const sftpData = (data: Buffer) => send(Buffer.concat([byte(94), u32(clientChannel), str(data)]));
    const onSftp = (data: Buffer) => {
      sftpIn = Buffer.concat([sftpIn, data]);
      while (sftpIn.length >= 4 && sftpIn.length >= 4 + sftpIn.readUInt32BE(0)) {
        const body = sftpIn.subarray(4, 4 + sftpIn.readUInt32BE(0));
        sftpIn = sftpIn.subarray(4 + body.length);
        if (body[0] === 1) sftpData(scenario.version ?? sftpPacket(byte(2), u32(3)));
        else {
          const reply = scenario.reply(body[0], body.readUInt32BE(1));
          if (reply) sftpData(reply);
        }
      }
    };
    const onMessage = (payload: Buffer) => {
      const type = payload[0];
      if (type === 20) clientKexInit = payload;
      else if (type === 30) {
        const clientPublic = payload.subarray(5, 5 + payload.readUInt32BE(1));
        const ephemeral = generateKeyPairSync("x25519");
        const serverPublic = Buffer.from(createPublicKey(ephemeral.privateKey).export({ format: "jwk" }).x ?? "", "base64url");
        const theirs = createPublicKey({ key: { kty: "OKP", crv: "X25519", x: clientPublic.toString("base64url") }, format: "jwk" });
        secret = mpint(diffieHellman({ privateKey: ephemeral.privateKey, publicKey: theirs }));
        exchangeHash = createHash("sha256")
          .update(Buffer.concat([str(clientVersion ?? ""), str(serverVersion), str(clientKexInit ?? Buffer.alloc(0)), str(serverKexInit), str(hostKeyBlob), str(clientPublic), str(serverPublic), secret]))
          .digest();
        const signature = Buffer.concat([str("ssh-ed25519"), str(sign(null, exchangeHash, host.privateKey))]);
        send(Buffer.concat([byte(31), str(hostKeyBlob), str(serverPublic), str(signature)]));
        send(byte(21));
      } else if (type === 21 && secret && exchangeHash) {
        const derive = (letter: string, length: number) => createHash("sha256").update(Buffer.concat([secret!, exchangeHash!, Buffer.from(letter), exchangeHash!])).digest().subarray(0, length);
        keys = { in: createDecipheriv("aes-128-ctr", derive("C", 16), derive("A", 16)), out: createCipheriv("aes-128-ctr", derive("D", 16), derive("B", 16)), outMac: derive("F", 32) };
      } else if (type === 5) send(Buffer.concat([byte(6), str("ssh-userauth")]));
      else if (type === 50) send(byte(52));
      else if (type === 90) {
        const typeLength = payload.readUInt32BE(1);
        clientChannel = payload.readUInt32BE(5 + typeLength);
        send(Buffer.concat([byte(91), u32(clientChannel), u32(0), u32(2 * 1024 * 1024), u32(32 * 1024)]));
      } else if (type === 98) send(Buffer.concat([byte(99), u32(clientChannel)]));
      else if (type === 94) onSftp(payload.subarray(9, 9 + payload.readUInt32BE(5)));
    };

    socket.on("data", (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (clientVersion === null) {
        const end = buffered.indexOf(0x0a);
        if (end < 0) return;
        clientVersion = buffered.subarray(0, end).toString("latin1").replace(/\r$/, "");
        buffered = buffered.subarray(end + 1);
      }
      for (;;) {
        if (!keys) {
          if (buffered.length < 4 || buffered.length < 4 + buffered.readUInt32BE(0)) return;
          const length = buffered.readUInt32BE(0);
          const body = buffered.subarray(4, 4 + length);
          buffered = buffered.subarray(4 + length);
          onMessage(body.subarray(1, body.length - body[0]));
        } else {
          if (buffered.length < 4 || buffered.length < 4 + buffered.readUInt32BE(0) + 32) return;
          const length = buffered.readUInt32BE(0);
          const body = keys.in.update(buffered.subarray(4, 4 + length));
          buffered = buffered.subarray(4 + length + 32);
          onMessage(body.subarray(1, body.length - body[0]));
        }
      }
    });
  });
  return { server, fingerprint };
}

/** An unsigned big-endian number as an SSH mpint (RFC 4251 §5). */
function mpint(unsigned: Buffer): Buffer {
  let start = 0;
  while (start < unsigned.length && unsigned[start] === 0) start++;
  const digits = unsigned.subarray(start);
  return str(digits.length && digits[0] & 0x80 ? Buffer.concat([byte(0), digits]) : digits);
}
