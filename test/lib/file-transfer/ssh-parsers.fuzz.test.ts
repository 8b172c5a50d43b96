// Every parser of what an SSH/SFTP server sends, tried with generated hostile input inside workerd
// (seeded, test/helpers/fuzz.ts): each returns data or throws an SshProtocolError that says what the
// server sent, never another error, never reads past what it was given and never asks the
// connection for more than one packet's bytes. Limits are tried at their maximum and one past it.
// The whole connector against a hostile server is in sftp.hostile.test.ts.
import fc from "fast-check";
import { createCipheriv, createDecipheriv, createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { MAX_SFTP_PACKET, readAttrs, readNames, readStatus, readVersion, SftpFramer } from "../../../src/lib/file-transfer/sftp-wire";
import { fingerprintOf, verifyHostSignature } from "../../../src/lib/file-transfer/ssh-keys";
import {
  BLOCK,
  CIPHERS,
  HOST_KEY_ALGORITHMS,
  hostKeyType,
  KEX_ALGORITHMS,
  MAC_LENGTH,
  MACS,
  MAX_PACKET,
  MAX_PRE_VERSION_LINES,
  negotiate,
  parseKexInit,
  pick,
  readPacket,
  readServerVersion,
  type PacketKeys,
} from "../../../src/lib/file-transfer/ssh-transport";
import { concat, Reader, SshProtocolError, Writer } from "../../../src/lib/file-transfer/ssh-wire";
import { fuzz } from "../../helpers/fuzz";

/** The connection ended: what a ByteSource throws when the server sent no more. */
class Ended extends Error {}

/** The bytes a server sent, as the connection gives them: n at a time, and how many were asked for. */
function source(bytes: Uint8Array) {
  let at = 0;
  const asked = { largest: 0, total: 0 };
  const fill = async (n: number) => {
    asked.largest = Math.max(asked.largest, n);
    asked.total += n;
    if (at + n > bytes.length) throw new Ended();
    const out = bytes.subarray(at, at + n);
    at += n;
    return out;
  };
  return { fill, asked, next: async () => (await fill(1))[0] };
}

/** What a parser may end in: its result, or an SshProtocolError whose message says what was sent (or the connection ending). */
async function outcome<T>(work: () => Promise<T> | T): Promise<{ ok: T } | { error: string }> {
  try {
    return { ok: await work() };
  } catch (error) {
    if (error instanceof Ended) return { error: "ended" };
    if (error instanceof SshProtocolError) {
      expect(error.message.length).toBeGreaterThan(10);
      expect(error.message.length).toBeLessThan(2000);
      return { error: error.message };
    }
    throw error;
  }
}

const u32 = (n: number) => new Writer().u32(n).done();
const bytesOf = (text: string) => new TextEncoder().encode(text);

// ---- The binary packet (RFC 4253 §6) ----

/** Both ends of one direction of a session: the server's cipher and MAC, and our keys to read them. */
function sessionKeys(etm: boolean) {
  const key = crypto.getRandomValues(new Uint8Array(16));
  const iv = crypto.getRandomValues(new Uint8Array(16));
  const macKey = crypto.getRandomValues(new Uint8Array(MAC_LENGTH));
  const server = createCipheriv("aes-128-ctr", key, iv);
  const ours: PacketKeys = { cipher: createDecipheriv("aes-128-ctr", key, iv), macKey, etm };
  /** A packet as a server sends it: `padding` bytes of padding (default: the least that aligns). */
  const encode = (payload: Uint8Array, seq: number, padding?: number) => {
    const covered = 1 + payload.length + (etm ? 0 : 4);
    const pad = padding ?? (BLOCK - (covered % BLOCK) < 4 ? 2 * BLOCK - (covered % BLOCK) : BLOCK - (covered % BLOCK));
    const body = concat([Uint8Array.of(pad), payload, new Uint8Array(pad)]);
    const length = u32(body.length);
    const mac = (data: Uint8Array) => new Uint8Array(createHmac("sha256", macKey).update(u32(seq)).update(data).digest());
    if (etm) {
      const encrypted = new Uint8Array(server.update(body));
      return concat([length, encrypted, mac(concat([length, encrypted]))]);
    }
    const plain = concat([length, body]);
    return concat([new Uint8Array(server.update(plain)), mac(plain)]);
  };
  return { ours, encode };
}

/** An unencrypted packet (before the key exchange: blocks of 8). */
function plainPacket(payload: Uint8Array, padding?: number) {
  const pad = padding ?? (8 - ((5 + payload.length) % 8) < 4 ? 16 - ((5 + payload.length) % 8) : 8 - ((5 + payload.length) % 8));
  return concat([u32(1 + payload.length + pad), Uint8Array.of(pad), payload, new Uint8Array(pad)]);
}

describe("the binary packet: lengths, padding, MAC", () => {
  it("any bytes before the key exchange: a payload or an error in words, never more than one packet asked of the connection", async () => {
    const stream = fc.oneof(
      fc.uint8Array({ maxLength: 600 }),
      // A length field of interest, then junk.
      fc.tuple(fc.constantFrom(0, 1, 4, 5, 6, 11, 12, 13, MAX_PACKET - 4, MAX_PACKET, MAX_PACKET + 4, 2 ** 31, 2 ** 32 - 1), fc.uint8Array({ maxLength: 64 })).map(([length, rest]) => concat([u32(length), rest])),
      // A packet whose padding length is anything.
      fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 40 }), fc.integer({ min: 0, max: 255 })).map(([payload, padding]) => {
        const p = plainPacket(payload);
        p[4] = padding;
        return p;
      }),
    );
    await fuzz(stream, 400, async (bytes) => {
      const { fill, asked } = source(bytes);
      const result = await outcome(() => readPacket(fill, null, 0));
      expect(asked.largest).toBeLessThanOrEqual(MAX_PACKET);
      if ("ok" in result) {
        expect(result.ok.length).toBeGreaterThan(0);
        expect(asked.total).toBeLessThanOrEqual(bytes.length);
      } else if (result.error !== "ended") expect(result.error).toMatch(/^sent a malformed packet \(/);
    });
  });

  it.each([
    ["0", 0, "its length is 0 bytes, too short for a message"],
    ["2^32-1", 2 ** 32 - 1, `its length is 4294967295 bytes, more than the ${MAX_PACKET} we accept`],
    ["one block past the largest", MAX_PACKET + 4, `its length is ${MAX_PACKET + 4} bytes, more than the ${MAX_PACKET} we accept`],
    ["not whole blocks", 13, "its length 13 is not a whole number of 8-byte blocks"],
  ])("a packet length of %s is refused before anything of that size is read", async (_, length, why) => {
    const { fill, asked } = source(concat([u32(length), new Uint8Array(64)]));
    expect(await outcome(() => readPacket(fill, null, 0))).toEqual({ error: `sent a malformed packet (${why})` });
    expect(asked.total).toBe(4);
  });

  it("the largest packet is read whole, and padding of 3 bytes or past the packet is refused", async () => {
    const largest = new Uint8Array(MAX_PACKET - 4 - 1 - 4).fill(7);
    const wire = plainPacket(largest, 4);
    expect(wire.length - 4).toBe(MAX_PACKET - 4);
    expect(await outcome(async () => (await readPacket(source(wire).fill, null, 0)).length)).toEqual({ ok: largest.length });
    expect(await outcome(() => readPacket(source(plainPacket(new Uint8Array(8).fill(20), 3)).fill, null, 0))).toEqual({ error: "sent a malformed packet (3 bytes of padding, fewer than the 4 required)" });
    const over = plainPacket(Uint8Array.of(20, 1, 2));
    over[4] = over.length - 4;
    expect(await outcome(() => readPacket(source(over).fill, null, 0))).toEqual({ error: `sent a malformed packet (${over.length - 4} bytes of padding in a packet of ${over.length - 4})` });
  });

  it.each([
    ["encrypt-then-MAC", true],
    ["MAC over the plain packet", false],
  ])("after the key exchange (%s): a well-formed packet reads back, and any flipped bit is refused", async (_, etm) => {
    const packet = fc.tuple(fc.uint8Array({ minLength: 1, maxLength: 300 }), fc.nat(), fc.nat());
    await fuzz(packet, 150, async ([payload, where, bit]) => {
      // The server's stream and ours stay in step: one fresh pair of keys per run.
      const good = sessionKeys(etm);
      expect(await readPacket(source(good.encode(payload, 7)).fill, good.ours, 7)).toEqual(payload);
      const bad = sessionKeys(etm);
      const wire = bad.encode(payload, 7);
      wire[where % wire.length] ^= 1 << bit % 8;
      const { fill, asked } = source(wire);
      const result = await outcome(() => readPacket(fill, bad.ours, 7));
      expect(result).not.toHaveProperty("ok");
      expect(asked.largest).toBeLessThanOrEqual(MAX_PACKET);
      if ("error" in result && result.error !== "ended") expect(result.error).toMatch(/^sent a (packet whose MAC is wrong \(corrupted or tampered with\)|malformed packet \()/);
    });
  });

  it("after the key exchange: a packet numbered otherwise (a replayed or dropped packet) fails its MAC", async () => {
    const keys = sessionKeys(true);
    expect(await outcome(() => readPacket(source(keys.encode(Uint8Array.of(94, 1, 2), 3)).fill, keys.ours, 4))).toEqual({ error: "sent a packet whose MAC is wrong (corrupted or tampered with)" });
  });

  it.each([
    ["its maximum", MAX_PACKET, true],
    ["one block past it", MAX_PACKET + BLOCK, false],
    ["2^32-1", 2 ** 32 - 1, false],
    ["0", 0, false],
  ])("encrypt-then-MAC: a length of %s", async (_, length, accepted) => {
    const keys = sessionKeys(true);
    if (accepted) {
      // The largest whole packet: its padding fills it up to MAX_PACKET.
      const payload = new Uint8Array(length - 1 - 4).fill(1);
      expect((await readPacket(source(keys.encode(payload, 0, 4)).fill, keys.ours, 0)).length).toBe(payload.length);
    } else {
      const { fill, asked } = source(concat([u32(length), new Uint8Array(64)]));
      expect(await outcome(() => readPacket(fill, keys.ours, 0))).toMatchObject({ error: expect.stringMatching(/^sent a malformed packet \(its length is \d+ bytes, (more than|too short)/) });
      expect(asked.total).toBe(4);
    }
  });
});

// ---- The version line (RFC 4253 §4.2) ----

describe("the version line", () => {
  const line = fc.oneof(
    fc.constantFrom("SSH-2.0-OpenSSH_9.2", "SSH-1.99-x", "SSH-1.5-old", "220 FTP ready", "HTTP/1.1 400 Bad Request", "", "SSH-2.0-\u0007bell"),
    fc.string({ maxLength: 300 }),
    fc.string({ unit: "binary", maxLength: 80 }),
  );
  const greeting = fc.tuple(fc.array(line, { maxLength: 60 }), fc.constantFrom("\r\n", "\n", ""), fc.boolean()).map(([lines, end, trailing]) => {
    const text = lines.join(end || "\r\n") + (trailing ? end : "");
    return new Uint8Array([...text].map((c) => c.charCodeAt(0) & 0xff));
  });

  it("anything a server sends first: a version, 'not SSH', or the connection ending; never more than 50 lines of 255 bytes read", async () => {
    await fuzz(greeting, 400, async (bytes) => {
      const { next, asked } = source(bytes);
      const result = await outcome(() => readServerVersion(next));
      expect(asked.total).toBeLessThanOrEqual(MAX_PRE_VERSION_LINES * 256);
      if ("ok" in result && result.ok.ok) expect(result.ok.version).toMatch(/^SSH-(2\.0|1\.99)-[\x20-\x7e]*$/);
    });
  });

  const read = (text: string) => readServerVersion(source(bytesOf(text)).next);

  it("49 lines before the version line are taken, 50 are not", async () => {
    expect(await read(`${"hello\r\n".repeat(MAX_PRE_VERSION_LINES - 1)}SSH-2.0-Server\r\n`)).toEqual({ ok: true, version: "SSH-2.0-Server" });
    expect(await read(`${"hello\r\n".repeat(MAX_PRE_VERSION_LINES)}SSH-2.0-Server\r\n`)).toEqual({ ok: false, said: "hello" });
  });

  it("a line of 255 bytes is taken, one of 256 is not (and nothing past it is read)", async () => {
    const version = `SSH-2.0-${"x".repeat(255 - 8 - 1)}`;
    expect(await read(`${version}\r\n`)).toEqual({ ok: true, version });
    const { next, asked } = source(bytesOf(`${version}x\r\n${"y".repeat(10_000)}`));
    expect(await readServerVersion(next)).toEqual({ ok: false, said: `${version}x`.slice(0, 255) });
    expect(asked.total).toBe(256);
  });

  it("SSH 1, a line that never ends and a version with control characters", async () => {
    expect(await read("SSH-1.5-OpenSSH_1\r\n")).toEqual({ ok: false, said: "SSH-1.5-OpenSSH_1", speaks: "SSH-1.5-OpenSSH_1" });
    expect(await outcome(() => read("SSH-2.0-no-end-of-line"))).toEqual({ error: "ended" });
    expect(await read("SSH-2.0-\u0000\r\n")).toEqual({ ok: false, said: "SSH-2.0-\u0000" });
  });
});

// ---- The key exchange's offer ----

const name = fc.oneof(
  fc.constantFrom(...KEX_ALGORITHMS, ...HOST_KEY_ALGORITHMS, ...Object.keys(CIPHERS), ...Object.keys(MACS), "none", "ssh-rsa", "aes128-cbc", "hmac-sha1", "diffie-hellman-group14-sha1", "kex-strict-s-v00@openssh.com"),
  fc.string({ maxLength: 70 }),
);
const nameList = fc.array(name, { maxLength: 30 }).map((names) => names.join(","));

function kexInit(lists: string[], follows = false) {
  const w = new Writer().byte(20).raw(new Uint8Array(16));
  for (const list of lists) w.string(list);
  return w.bool(follows).u32(0).done();
}

describe("the key exchange's offer (KEXINIT)", () => {
  it("any offer: the algorithms agreed are ours, or the refusal names what the server offers, briefly", async () => {
    const offer = fc.oneof(
      fc.tuple(fc.array(nameList, { minLength: 10, maxLength: 10 }), fc.boolean()).map(([lists, follows]) => kexInit(lists, follows)),
      fc.uint8Array({ maxLength: 200 }).map((junk) => concat([Uint8Array.of(20), junk])),
    );
    await fuzz(offer, 400, async (payload) => {
      const result = await outcome(() => negotiate(parseKexInit(payload)));
      if ("ok" in result) {
        expect(KEX_ALGORITHMS).toContain(result.ok.kex);
        expect(HOST_KEY_ALGORITHMS).toContain(result.ok.hostKey);
        expect(Object.keys(CIPHERS)).toContain(result.ok.cipherCS);
        expect(Object.keys(MACS)).toContain(result.ok.macSC);
      } else expect((result as { error: string }).error).toMatch(/^(supports no (key exchange|host key type|cipher|MAC|compression) we do \(it offers |sent a key exchange offer that cannot be read \()/);
    });
  });

  it("what we offer: exactly these, none of them weak (no SHA-1, MD5, CBC, RC4, DSA or ssh-rsa signatures)", () => {
    const offer = { kex: KEX_ALGORITHMS, hostKey: HOST_KEY_ALGORITHMS, cipher: Object.keys(CIPHERS), mac: Object.keys(MACS) };
    expect(offer).toEqual({
      kex: ["curve25519-sha256", "curve25519-sha256@libssh.org", "ecdh-sha2-nistp256"],
      hostKey: ["ssh-ed25519", "ecdsa-sha2-nistp256", "rsa-sha2-512", "rsa-sha2-256"],
      cipher: ["aes128-ctr", "aes256-ctr"],
      mac: ["hmac-sha2-256-etm@openssh.com", "hmac-sha2-256"],
    });
    for (const name of Object.values(offer).flat()) expect(name).not.toMatch(/sha1|md5|-cbc|arcfour|dss|^ssh-rsa$/);
  });

  it("an offer of 100,000 names is refused with a dozen of them shown", () => {
    const many = Array.from({ length: 100_000 }, (_, i) => `x${i}`);
    expect(() => pick(Object.keys(CIPHERS), many, "cipher")).toThrow(`supports no cipher we do (it offers ${many.slice(0, 12).join(", ")} and 99988 more; we offer aes128-ctr, aes256-ctr)`);
  });

  it("an offer cut short is refused in words", () => {
    expect(() => parseKexInit(Uint8Array.of(20, 1, 2, 3))).toThrow("sent a key exchange offer that cannot be read (a message from the server ended early)");
    expect(() => parseKexInit(concat([kexInit(["curve25519-sha256"]).subarray(0, 21), u32(2 ** 32 - 1)]))).toThrow("sent a key exchange offer that cannot be read");
  });

  it.each([
    ["SHA-1 key exchange", 0, "diffie-hellman-group14-sha1,diffie-hellman-group1-sha1", "key exchange", "SHA-1 key exchange"],
    ["ssh-rsa", 1, "ssh-rsa,ssh-dss", "host key type", "RSA signatures with SHA-1, DSA, 1024 bits with SHA-1"],
    ["CBC ciphers", 2, "aes128-cbc,aes256-cbc,3des-cbc", "cipher", "CBC cipher"],
    ["SHA-1 and MD5 MACs", 4, "hmac-sha1,hmac-sha1-etm@openssh.com,hmac-md5", "MAC", "HMAC with SHA-1, HMAC with MD5"],
  ])("a server offering only weak %s is refused, naming them and why", (_, index, weak, what, why) => {
    const lists = ["curve25519-sha256", "ssh-ed25519", "aes128-ctr", "aes128-ctr", "hmac-sha2-256", "hmac-sha2-256", "none", "none", "", ""];
    lists[index] = weak;
    if (index === 2 || index === 4) lists[index + 1] = weak;
    expect(() => negotiate(parseKexInit(kexInit(lists)))).toThrow(new RegExp(`^supports no ${what} we do \\(it offers ${weak.split(",").join(", ")}; we offer [^)]+\\): all it offers is weak \\(${why}\\), which we refuse$`));
  });

  it("a server without compression 'none' is refused", () => {
    expect(() => negotiate(parseKexInit(kexInit(["curve25519-sha256", "ssh-ed25519", "aes128-ctr", "aes128-ctr", "hmac-sha2-256", "hmac-sha2-256", "zlib", "zlib", "", ""])))).toThrow(
      "supports no compression we do (it offers zlib; we offer none)",
    );
  });
});

// ---- Host keys and signatures ----

describe("host key and signature blobs", () => {
  const blob = fc.oneof(
    fc.uint8Array({ maxLength: 300 }),
    fc.tuple(fc.constantFrom("ssh-ed25519", "ecdsa-sha2-nistp256", "ssh-rsa", "rsa-sha2-256", "rsa-sha2-512", "ssh-dss", ""), fc.array(fc.uint8Array({ maxLength: 300 }), { maxLength: 3 })).map(([type, fields]) => {
      const w = new Writer().string(type);
      for (const f of fields) w.string(f);
      return w.done();
    }),
    fc.tuple(fc.constantFrom("ssh-ed25519", "ssh-rsa"), fc.constantFrom(0, 1, 2 ** 31, 2 ** 32 - 1)).map(([type, length]) => concat([new Writer().string(type).done(), u32(length)])),
  );

  it("any host key and signature: verified, not verified, or refused in words; the key's type shown is short and printable", async () => {
    await fuzz(fc.tuple(blob, blob), 300, async ([hostKey, signature]) => {
      expect(fingerprintOf(hostKey)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
      expect(hostKeyType(hostKey)).toMatch(/^[\x20-\x7e]{0,64}$/);
      const result = await outcome(() => verifyHostSignature(hostKey, signature, new Uint8Array(32)));
      if ("error" in result) expect(result.error).toMatch(/^(sent|showed|signed) /);
      else expect(result.ok).toBe(false);
    });
  });

  it("a real Ed25519 key with a signature of the wrong size, and an RSA host key under 2048 bits, are refused in words", async () => {
    const pair = (await crypto.subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const raw = new Uint8Array((await crypto.subtle.exportKey("raw", pair.publicKey)) as ArrayBuffer);
    const hostKey = new Writer().string("ssh-ed25519").string(raw).done();
    expect(await outcome(() => verifyHostSignature(hostKey, new Writer().string("ssh-ed25519").string(new Uint8Array(63)).done(), new Uint8Array(32)))).not.toHaveProperty("ok", true);
    const rsa = (await crypto.subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 1024, publicExponent: Uint8Array.of(1, 0, 1), hash: "SHA-256" }, true, ["sign", "verify"])) as CryptoKeyPair;
    const jwk = (await crypto.subtle.exportKey("jwk", rsa.publicKey)) as JsonWebKey;
    const b = (v: string | undefined) => new Uint8Array(Buffer.from(v ?? "", "base64url"));
    const rsaKey = new Writer().string("ssh-rsa").mpint(b(jwk.e)).mpint(b(jwk.n)).done();
    expect(await outcome(() => verifyHostSignature(rsaKey, new Writer().string("rsa-sha2-256").string(new Uint8Array(128)).done(), new Uint8Array(32)))).toEqual({
      error: "showed an RSA host key of 1024 bits; we refuse RSA keys under 2048 bits as weak",
    });
  });
});

// ---- SFTP packets and replies ----

describe("SFTP: the packets in the channel, STATUS, NAME, attributes, VERSION", () => {
  it("any bytes in any pieces: packets or an error in words; an oversized or empty length is refused as soon as it is in", async () => {
    const stream = fc.oneof(
      fc.array(fc.uint8Array({ maxLength: 64 }), { maxLength: 8 }),
      fc.tuple(fc.constantFrom(0, 1, MAX_SFTP_PACKET, MAX_SFTP_PACKET + 1, 2 ** 32 - 1), fc.uint8Array({ maxLength: 40 })).map(([length, rest]) => [u32(length), rest]),
    );
    await fuzz(stream, 400, async (pieces) => {
      const framer = new SftpFramer();
      for (const piece of pieces) {
        const result = await outcome(() => framer.push(piece));
        if ("error" in result) {
          expect(result.error).toMatch(/^sent (an SFTP packet of \d+ bytes \(at most 1048576 are expected\)|an empty SFTP packet)$/);
          return;
        }
        for (const packet of result.ok) expect(packet.remaining).toBeLessThanOrEqual(MAX_SFTP_PACKET - 1);
      }
    });
  });

  it("a packet of the largest size is taken, one byte more is refused before it arrives", () => {
    const framer = new SftpFramer();
    const largest = concat([u32(MAX_SFTP_PACKET), Uint8Array.of(103), new Uint8Array(MAX_SFTP_PACKET - 1)]);
    expect(framer.push(largest.subarray(0, 1000))).toEqual([]);
    const [packet] = framer.push(largest.subarray(1000));
    expect([packet.type, packet.remaining]).toEqual([103, MAX_SFTP_PACKET - 1]);
    expect(() => new SftpFramer().push(u32(MAX_SFTP_PACKET + 1))).toThrow(`sent an SFTP packet of ${MAX_SFTP_PACKET + 1} bytes (at most ${MAX_SFTP_PACKET} are expected)`);
    expect(() => new SftpFramer().push(u32(0))).toThrow("sent an empty SFTP packet");
  });

  const field = fc.oneof(fc.uint8Array({ maxLength: 40 }), fc.constantFrom(2 ** 32 - 1, 2 ** 31, 0, 1, 1000).map(u32), fc.constant(u32(0x8000000f)));

  it("any reply body: STATUS, NAME, attributes and VERSION read it, or say it cannot be read", async () => {
    await fuzz(fc.array(field, { maxLength: 8 }).map(concat), 500, async (body) => {
      for (const parse of [readStatus, readNames, readAttrs, readVersion] as ((r: Reader) => unknown)[]) {
        const result = await outcome(() => parse(new Reader(body)));
        if ("error" in result) expect(result.error).toMatch(/^(a message from the server ended early|a count of \d+ names in \d+ bytes)$/);
      }
    });
  });

  it("a NAME reply whose count is past its data is refused at once, also at 2^32-1; a count that fits reads back", () => {
    const entry = new Writer().string("a.csv").string("-rw-r--r-- a.csv").u32(0x1).u64(42).done();
    expect(readNames(new Reader(concat([u32(1), entry])))).toEqual([{ name: "a.csv", attrs: { size: 42, mtime: null, permissions: null } }]);
    expect(() => readNames(new Reader(concat([u32(2), entry])))).toThrow("a message from the server ended early");
    expect(() => readNames(new Reader(concat([u32(2 ** 32 - 1), entry])))).toThrow(`a count of 4294967295 names in ${entry.length} bytes`);
    // The most entries a packet can hold: empty names, no attributes.
    const empty = new Writer().string("").string("").u32(0).done();
    const most = Math.floor((MAX_SFTP_PACKET - 9) / 12);
    expect(readNames(new Reader(concat([u32(most), ...Array.from({ length: most }, () => empty)])))).toHaveLength(most);
  });

  it("attributes with 2^32-1 extended pairs end at the data's end", () => {
    expect(() => readAttrs(new Reader(concat([u32(0x80000000), u32(2 ** 32 - 1), new Writer().string("a").string("b").done()])))).toThrow("a message from the server ended early");
  });

  it("a STATUS without its message (SFTP v3 allows that) and with one", () => {
    expect(readStatus(new Reader(u32(4)))).toEqual({ code: 4, message: "" });
    expect(readStatus(new Reader(concat([u32(2), new Writer().string("No such file").string("en").done()])))).toEqual({ code: 2, message: "No such file" });
    expect(() => readStatus(new Reader(concat([u32(2), u32(2 ** 32 - 1)])))).toThrow("a message from the server ended early");
  });
});
