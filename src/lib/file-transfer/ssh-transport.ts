// What our SSH client reads from a server before and around the encrypted session, as functions of
// their own so that each can be tried with hostile input (test/lib/file-transfer/ssh-parsers.fuzz.test.ts):
// the version line (RFC 4253 §4.2), the binary packet (§6: lengths, padding, MAC) and the key
// exchange's offer (§7.1: the name lists, and which of them we take). Each ends in a result or an
// SshProtocolError saying what the server sent; ssh.ts adds which server and at which step.
import { createHmac, timingSafeEqual, type Cipheriv, type Decipheriv } from "node:crypto";
import { concat, Reader, shown, SshProtocolError, Writer } from "./ssh-wire";

export const MAC_LENGTH = 32;
export const BLOCK = 16;
/** Larger packets are refused (OpenSSH sends at most 256 KiB). */
export const MAX_PACKET = 512 * 1024;

export type PacketKeys = { cipher: Cipheriv | Decipheriv; macKey: Uint8Array; etm: boolean };

/** Gives the next n bytes of the connection, or throws when it ended. */
export type ByteSource = (n: number) => Promise<Uint8Array>;

const malformed = (what: string) => new SshProtocolError(`sent a malformed packet (${what})`);

/**
 * One packet's payload (RFC 4253 §6). Before the key exchange (`keys` null) in the clear, in blocks
 * of 8; after it AES-CTR in blocks of 16 with HMAC-SHA-256, the length inside the first block or,
 * with encrypt-then-MAC, in the clear and covered by the MAC. A length is checked before anything
 * of that size is read, and the MAC before the packet is used: at most MAX_PACKET bytes are ever
 * asked of `fill`, and nothing past what was read is looked at.
 */
export async function readPacket(fill: ByteSource, keys: PacketKeys | null, seq: number): Promise<Uint8Array> {
  const checkLength = (length: number, aligned: number, block: number) => {
    if (length > MAX_PACKET) throw malformed(`its length is ${length} bytes, more than the ${MAX_PACKET} we accept`);
    // Padding length, a payload of at least one byte (the message type) and four bytes of padding.
    if (length < 6) throw malformed(`its length is ${length} bytes, too short for a message`);
    if (aligned % block !== 0) throw malformed(`its length ${length} is not a whole number of ${block}-byte blocks`);
  };
  let packet: Uint8Array;
  if (!keys) {
    const head = await fill(4);
    const length = new Reader(head).u32();
    checkLength(length, length + 4, 8);
    packet = await fill(length);
  } else if (keys.etm) {
    const head = await fill(4);
    const length = new Reader(head).u32();
    checkLength(length, length, BLOCK);
    const encrypted = await fill(length);
    checkMac(keys, seq, [head, encrypted], await fill(MAC_LENGTH));
    packet = new Uint8Array(keys.cipher.update(encrypted));
  } else {
    const first = new Uint8Array(keys.cipher.update(await fill(BLOCK)));
    const length = new Reader(first).u32();
    checkLength(length, length + 4, BLOCK);
    const rest = new Uint8Array(keys.cipher.update(await fill(length + 4 - BLOCK)));
    const plain = concat([first, rest]);
    checkMac(keys, seq, [plain], await fill(MAC_LENGTH));
    packet = plain.subarray(4);
  }
  const padding = packet[0];
  if (padding < 4) throw malformed(`${padding} bytes of padding, fewer than the 4 required`);
  if (padding + 2 > packet.length) throw malformed(`${padding} bytes of padding in a packet of ${packet.length}`);
  return packet.subarray(1, packet.length - padding);
}

function checkMac(keys: PacketKeys, seq: number, parts: Uint8Array[], mac: Uint8Array) {
  const hmac = createHmac("sha256", keys.macKey).update(new Writer().u32(seq).done());
  for (const part of parts) hmac.update(part);
  if (!timingSafeEqual(hmac.digest(), mac)) throw new SshProtocolError("sent a packet whose MAC is wrong (corrupted or tampered with)");
}

// ---- The version line (RFC 4253 §4.2) ----

/** At most this many lines before the version line, each at most 255 bytes with its CR LF (RFC 4253 §4.2). */
export const MAX_PRE_VERSION_LINES = 50;
const MAX_LINE = 255;

export type ServerVersion = { ok: true; version: string } | { ok: false; said: string; speaks?: string };

/**
 * Reads the server's version line, byte by byte (nothing past it is taken from the connection).
 * Lines before it are allowed, but not an FTP or SMTP greeting nor HTTP; a line over 255 bytes, or
 * more than 50 lines, is not SSH. When the connection ends after a first line, that line is what the
 * server "said"; when it ends before any, the error of `next` is thrown.
 */
export async function readServerVersion(next: () => Promise<number>): Promise<ServerVersion> {
  let first: string | null = null;
  for (let lines = 0; lines < MAX_PRE_VERSION_LINES; lines++) {
    let line = "";
    for (;;) {
      let c: number;
      try {
        c = await next();
      } catch (error) {
        // A server of another protocol often answers our greeting with an error and hangs up.
        if (first !== null) return { ok: false, said: first };
        throw error;
      }
      if (c === 0x0a) break;
      if (line.length >= MAX_LINE) return { ok: false, said: first ?? line };
      line += String.fromCharCode(c);
    }
    line = line.replace(/\r$/, "");
    if (line.startsWith("SSH-")) {
      if (!line.startsWith("SSH-2.0-") && !line.startsWith("SSH-1.99-")) return { ok: false, said: line, speaks: line };
      // RFC 4253 §4.2: printable US-ASCII only (it goes into the exchange hash as it is).
      if (/[^\x20-\x7e]/.test(line)) return { ok: false, said: line };
      return { ok: true, version: line };
    }
    if (/^\d{3}[ -]|^HTTP\//.test(line)) return { ok: false, said: line };
    first ??= line;
  }
  return { ok: false, said: first ?? "" };
}

// ---- The key exchange's offer (RFC 4253 §7.1) ----

export const KEX_ALGORITHMS = ["curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp256"];
export const HOST_KEY_ALGORITHMS = ["ssh-ed25519", "ecdsa-sha2-nistp256", "rsa-sha2-512", "rsa-sha2-256"];
export const CIPHERS: Record<string, { node: string; keyLength: number }> = {
  "aes128-ctr": { node: "aes-128-ctr", keyLength: 16 },
  "aes256-ctr": { node: "aes-256-ctr", keyLength: 32 },
};
export const MACS: Record<string, { etm: boolean }> = {
  "hmac-sha2-256-etm@openssh.com": { etm: true },
  "hmac-sha2-256": { etm: false },
};

export type KexInit = {
  kex: string[];
  hostKey: string[];
  cipherCS: string[];
  cipherSC: string[];
  macCS: string[];
  macSC: string[];
  compressionCS: string[];
  compressionSC: string[];
  firstKexPacketFollows: boolean;
};

/** The server's KEXINIT (the message type and the 16 bytes of cookie included). */
export function parseKexInit(payload: Uint8Array): KexInit {
  try {
    const r = new Reader(payload);
    r.byte();
    for (let i = 0; i < 16; i++) r.byte(); // the cookie
    const list = () => r.names();
    const [kex, hostKey, cipherCS, cipherSC, macCS, macSC, compressionCS, compressionSC] = [list(), list(), list(), list(), list(), list(), list(), list()];
    list(), list(); // languages
    return { kex, hostKey, cipherCS, cipherSC, macCS, macSC, compressionCS, compressionSC, firstKexPacketFollows: r.bool() };
  } catch (error) {
    // A length past the end of the message: name the message, not only the reading.
    if (error instanceof SshProtocolError) throw new SshProtocolError(`sent a key exchange offer that cannot be read (${error.message})`);
    throw error;
  }
}

/**
 * Algorithms we never take, and why: a server offering only these is told so in words. SHA-1 is
 * broken for signatures (SHA-1 collisions, "SHA-1 is a Shambles", 2020), CBC modes leak plaintext
 * over SSH (CVE-2008-5161), and OpenSSH itself turned all of these off by default.
 */
function weakness(name: string): string | null {
  if (/^diffie-hellman-group(1|14|-exchange)-sha1$/.test(name)) return "SHA-1 key exchange";
  if (name === "ssh-rsa" || name === "ssh-rsa-cert-v01@openssh.com") return "RSA signatures with SHA-1";
  if (name.startsWith("ssh-dss")) return "DSA, 1024 bits with SHA-1";
  if (/-cbc(@|$)/.test(name) || name === "rijndael-cbc@lysator.liu.se") return "CBC cipher";
  if (name.startsWith("arcfour") || name === "none") return name === "none" ? "no encryption" : "RC4 cipher";
  if (/^hmac-(sha1|md5|ripemd160)/.test(name)) return /sha1/.test(name) ? "HMAC with SHA-1" : "HMAC with MD5";
  return null;
}

const MAX_NAMES_SHOWN = 12;

function showList(names: string[]): string {
  if (names.length === 0) return "none";
  const head = names.slice(0, MAX_NAMES_SHOWN).map((name) => shown(name)).join(", ");
  return names.length > MAX_NAMES_SHOWN ? `${head} and ${names.length - MAX_NAMES_SHOWN} more` : head;
}

/** RFC 4253 §7.1: the first of our algorithms the server also has; else the refusal in words, naming the weak ones. */
export function pick(ours: string[], offered: string[], what: string): string {
  const chosen = ours.find((a) => offered.includes(a));
  if (chosen) return chosen;
  // Markers in the key exchange list (strict key exchange, RFC 8308's ext-info) are no algorithms.
  const theirs = offered.filter((name) => !/^(kex-strict-[cs]-v00@openssh\.com|ext-info-[cs])$/.test(name));
  const weak = theirs.map((name) => [name, weakness(name)] as const).filter((entry): entry is readonly [string, string] => entry[1] !== null);
  const reasons = [...new Set(weak.map(([, why]) => why))].join(", ");
  const note = weak.length === 0 ? "" : weak.length === theirs.length ? `: all it offers is weak (${reasons}), which we refuse` : `; of those, ${showList(weak.map(([name]) => name))} we refuse as weak (${reasons})`;
  throw new SshProtocolError(`supports no ${what} we do (it offers ${showList(theirs)}; we offer ${ours.join(", ")})${note}`);
}

export type Agreed = { kex: string; hostKey: string; cipherCS: string; cipherSC: string; macCS: string; macSC: string; strict: boolean; wrongGuess: boolean };

/** What the key exchange will use, from the server's offer; a server with nothing in common is refused in words. */
export function negotiate(server: KexInit): Agreed {
  const kex = pick(KEX_ALGORITHMS, server.kex, "key exchange");
  const hostKey = pick(HOST_KEY_ALGORITHMS, server.hostKey, "host key type");
  const agreed = {
    kex,
    hostKey,
    cipherCS: pick(Object.keys(CIPHERS), server.cipherCS, "cipher"),
    cipherSC: pick(Object.keys(CIPHERS), server.cipherSC, "cipher"),
    macCS: pick(Object.keys(MACS), server.macCS, "MAC"),
    macSC: pick(Object.keys(MACS), server.macSC, "MAC"),
    strict: server.kex.includes("kex-strict-s-v00@openssh.com"),
    // RFC 4253 §7: a server may send its first key exchange packet on a guess; a wrong guess (its
    // first algorithms are not the ones agreed) is ignored. OpenSSH never guesses.
    wrongGuess: server.firstKexPacketFollows && (server.kex[0] !== kex || server.hostKey[0] !== hostKey),
  };
  pick(["none"], server.compressionCS, "compression");
  pick(["none"], server.compressionSC, "compression");
  return agreed;
}

/** A host key's type as we show it in a message: its first field, printable and short, whatever the blob is. */
export function hostKeyType(blob: Uint8Array): string {
  try {
    return shown(new Reader(blob).text());
  } catch {
    return "unreadable";
  }
}
