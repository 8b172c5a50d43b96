// What an FTP server sends, read by the connector's parsers (src/lib/file-transfer/ftp-parse.ts):
// properties over generated input (fast-check, seeded as test/helpers/fuzz.ts says), and the
// limits at their maximum and one past. Each parser either reads the input or says in words why
// not (FtpReplyError); nothing else may come out of it. The same inputs over a real TCP connection,
// from a hostile server, are in ftp.hostile.test.ts.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ftpTime, FtpReplyError, MAX_REPLY_CHARS, oneLine, parseEpsv, parseFacts, parseFeatures, parseListing, parseListLine, parsePasv, parsePwd, parseSize, ReplyReader, type Reply } from "../../../src/lib/file-transfer/ftp-parse";
import { fuzz } from "../../helpers/fuzz";

const bytes = (text: string) => new TextEncoder().encode(text);

/** Every reply `chunks` give, pushed one chunk at a time; an error ends the list. */
function readAll(chunks: Uint8Array[]): { replies: Reply[]; error: unknown } {
  const reader = new ReplyReader();
  const replies: Reply[] = [];
  try {
    for (const chunk of chunks) {
      reader.push(chunk);
      for (let reply = reader.take(); reply; reply = reader.take()) replies.push(reply);
    }
    return { replies, error: null };
  } catch (error) {
    return { replies, error };
  }
}

/** `all` cut at the given offsets. */
function cut(all: Uint8Array, offsets: number[]): Uint8Array[] {
  const points = [...new Set(offsets.map((o) => o % (all.length + 1)))].sort((a, b) => a - b);
  const chunks: Uint8Array[] = [];
  let from = 0;
  for (const at of [...points, all.length]) {
    chunks.push(all.subarray(from, at));
    from = at;
  }
  return chunks;
}

const everyByte = (all: Uint8Array) => Array.from(all, (_, i) => all.subarray(i, i + 1));

// Text a server may put in a line: any character but a line end, UTF-8 of every width included.
const lineText = fc.string({ unit: fc.oneof(fc.constantFrom(" ", "-", "é", "€", "😀", "\r", "\t", "\u0000", '"'), fc.string({ minLength: 1, maxLength: 1 })), maxLength: 30 }).map((t) => t.replace(/\n/g, " ").replace(/\r+$/, ""));
const code = fc.integer({ min: 100, max: 699 }).map(String);
const eol = fc.constantFrom("\r\n", "\n");

/** A valid reply as sent (its bytes) and as read (code and text). */
const validReply: fc.Arbitrary<{ sent: string; reply: Reply }> = fc.oneof(
  fc.tuple(code, lineText, eol).map(([c, t, e]) => ({ sent: `${c} ${t}${e}`, reply: { code: Number(c), text: `${c} ${t}` } })),
  // Inner lines may start with anything, other codes included (RFC 959 4.2), but not `ddd ` with this code.
  fc.tuple(code, lineText, fc.array(fc.tuple(fc.oneof(lineText, code.map((c) => `${c} `), code.map((c) => `${c}-x`)), eol), { maxLength: 5 }), lineText, eol, eol).map(([c, first, inner, last, e1, e2]) => {
    const kept = inner.filter(([t]) => !t.startsWith(`${c} `) && t !== c);
    const sent = `${c}-${first}${e1}${kept.map(([t, e]) => `${t}${e}`).join("")}${c} ${last}${e2}`;
    return { sent, reply: { code: Number(c), text: [`${c}-${first}`, ...kept.map(([t]) => t), `${c} ${last}`].join("\n") } };
  }),
);

describe("replies on the control connection", () => {
  it("reads any valid replies the same, however the bytes are split across reads", async () => {
    await fuzz(fc.tuple(fc.array(validReply, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 8 })), 300, async ([replies, offsets]) => {
      const all = bytes(replies.map((r) => r.sent).join(""));
      const expected = { replies: replies.map((r) => r.reply), error: null };
      expect(readAll([all])).toEqual(expected);
      expect(readAll(cut(all, offsets))).toEqual(expected);
      expect(readAll(everyByte(all))).toEqual(expected);
    });
  });

  it("a multi-line reply split at every byte, with a character of four bytes in it", () => {
    const sent = "211-Features:\r\n MLST size*;modify*;\r\n 😀 UTF8\r\n211 End\r\n220 next\n";
    const expected = [
      { code: 211, text: "211-Features:\n MLST size*;modify*;\n 😀 UTF8\n211 End" },
      { code: 220, text: "220 next" },
    ];
    for (let at = 0; at <= bytes(sent).length; at++) expect(readAll(cut(bytes(sent), [at])).replies).toEqual(expected);
    expect(readAll(everyByte(bytes(sent))).replies).toEqual(expected);
  });

  it("a bare LF ends a line, a bare code is a reply, and inner lines with other codes are text", () => {
    expect(readAll([bytes("220 hi\n")]).replies).toEqual([{ code: 220, text: "220 hi" }]);
    expect(readAll([bytes("200\r\n")]).replies).toEqual([{ code: 200, text: "200" }]);
    expect(readAll([bytes("123-first\r\n456 other\r\n123-again\r\n123\r\n")]).replies).toEqual([{ code: 123, text: "123-first\n456 other\n123-again\n123" }]);
  });

  it("a multi-line reply whose end never comes (or ends with another code) is waited for, not taken", () => {
    expect(readAll([bytes("123-first\r\n456 end\r\n")])).toEqual({ replies: [], error: null });
    expect(readAll([bytes("123-first\r\n123 end")])).toEqual({ replies: [], error: null });
  });

  it("what is not FTP is said in words, whatever it is", () => {
    expect(readAll([bytes("HTTP/1.1 400 Bad Request\r\n")]).error).toEqual(new FtpReplyError('does not speak FTP (it said "HTTP/1.1 400 Bad Request")'));
    expect(readAll([bytes("SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3\r\n")]).error).toEqual(new FtpReplyError('does not speak FTP (it said "SSH-2.0-OpenSSH_9.2p1 Debian-2+deb12u3")'));
    expect(readAll([bytes("099 too low\r\n")]).error).toEqual(new FtpReplyError('does not speak FTP (it said "099 too low")'));
    expect(readAll([bytes("22 short\r\n")]).error).toEqual(new FtpReplyError('does not speak FTP (it said "22 short")'));
    expect(readAll([bytes(`${"x".repeat(100)}\n`)]).error).toEqual(new FtpReplyError(`does not speak FTP (it said "${"x".repeat(80)}…")`));
  });

  it("any bytes at all, in any reads: replies with a code from 100 to 699, or an FtpReplyError, nothing else", async () => {
    const junk = fc.oneof(
      fc.uint8Array({ maxLength: 200 }),
      fc.array(fc.oneof(code, fc.constantFrom("-", " ", "\r", "\n", "\r\n", "é"), lineText), { maxLength: 20 }).map((parts) => bytes(parts.join(""))),
      // Bytes that are not UTF-8 (a server in Latin-1, a binary protocol) around a code.
      fc.tuple(code, fc.uint8Array({ maxLength: 20 }), fc.constantFrom("\r\n", "\n")).map(([c, b, e]) => new Uint8Array([...bytes(`${c} `), ...b, 0xff, 0xc3, ...bytes(e)])),
    );
    await fuzz(fc.tuple(fc.array(junk, { minLength: 1, maxLength: 5 }), fc.array(fc.nat(), { maxLength: 6 })), 500, async ([pieces, offsets]) => {
      const all = new Uint8Array(pieces.reduce((n, p) => n + p.length, 0));
      pieces.reduce((at, p) => (all.set(p, at), at + p.length), 0);
      for (const chunks of [[all], cut(all, offsets)]) {
        const { replies, error } = readAll(chunks);
        if (error !== null) {
          expect(error).toBeInstanceOf(FtpReplyError);
          expect((error as Error).message).toMatch(/^does not speak FTP \(/);
        }
        for (const reply of replies) {
          expect(reply.code).toBeGreaterThanOrEqual(100);
          expect(reply.code).toBeLessThanOrEqual(699);
          expect(reply.text.startsWith(String(reply.code))).toBe(true);
        }
      }
    });
  });

  it(`holds at most ${MAX_REPLY_CHARS} characters of a reply without its end: at the limit it waits, one past it says so`, () => {
    const overlong = new FtpReplyError(`does not speak FTP (${MAX_REPLY_CHARS} characters without a complete reply)`);
    // One line without its end.
    const line = `220 ${"x".repeat(MAX_REPLY_CHARS - 4)}`;
    expect(readAll([bytes(line)])).toEqual({ replies: [], error: null });
    expect(readAll([bytes(`${line}x`)])).toEqual({ replies: [], error: overlong });
    // A multi-line reply that never ends: lines of 62 characters and their CRLF.
    const lines = `211-start\r\n${` ${"y".repeat(61)}\r\n`.repeat(Math.floor((MAX_REPLY_CHARS - 11) / 64))}`;
    const filled = lines + "z".repeat(MAX_REPLY_CHARS - lines.length);
    expect(filled.length).toBe(MAX_REPLY_CHARS);
    expect(readAll([bytes(filled)])).toEqual({ replies: [], error: null });
    expect(readAll([bytes(`${filled}z`)])).toEqual({ replies: [], error: overlong });
    // A byte at a time, a server trickling a line that never ends: the same, at the same byte.
    const trickled = readAll(everyByte(bytes(`${line}xx`)));
    expect(trickled).toEqual({ replies: [], error: overlong });
    // At the limit, the reply that then ends is read.
    expect(readAll([bytes(`${line}\r\n`)]).replies).toEqual([{ code: 220, text: line }]);
  });
});

describe("passive addresses", () => {
  const epsv = (text: string) => parseEpsv({ code: 229, text });
  const pasv = (text: string) => parsePasv({ code: 227, text });

  it("EPSV: the port in (|||port|), with any delimiter RFC 2428 allows; 1 and 65535 taken, 0 and 65536 not", async () => {
    expect(epsv("229 Entering Extended Passive Mode (|||31001|)")).toBe(31001);
    expect(epsv("229 EPSV ok (!!!1!)")).toBe(1);
    expect(epsv("229 (###65535#)")).toBe(65535);
    for (const text of ["229 (|||0|)", "229 (|||65536|)", "229 (|||99999|)", `229 (|||${"9".repeat(400)}|)`, "229 (|||-1|)", "229 (|||31001)", "229 (||31001|)", "229 (1113100111)", "229 Entering Extended Passive Mode", "229 (|||31001#)"])
      expect(() => epsv(text)).toThrow(new FtpReplyError(`answered EPSV without a port we can use (${oneLine(text)})`));
    await fuzz(fc.tuple(fc.integer({ min: 1, max: 65535 }), fc.constantFrom(..."|!#$%&'*+,./:;<=>?@^_`~")), 200, async ([port, d]) => {
      expect(epsv(`229 Entering Extended Passive Mode (${d}${d}${d}${port}${d})`)).toBe(port);
    });
  });

  it("PASV: the address and port named, every number checked", async () => {
    expect(pasv("227 Entering Passive Mode (127,0,0,1,122,105)")).toEqual({ host: "127.0.0.1", port: 31337 });
    expect(pasv("227 Entering Passive Mode 10,0,0,1,255,255")).toEqual({ host: "10.0.0.1", port: 65535 });
    expect(pasv("227 =169,254,169,254,0,1")).toEqual({ host: "169.254.169.254", port: 1 });
    for (const text of ["227 Entering Passive Mode (127,0,0,1,0,0)", "227 (256,0,0,1,4,1)", "227 (127,0,0,1,256,1)", "227 (127,0,0,1,4,999)", "227 (127,0,0,1,4)", "227 Entering Passive Mode", `227 (${"1".repeat(300)},0,0,1,4,1)`, "227 (127,0,0,1,-4,1)"])
      expect(() => pasv(text)).toThrow(new FtpReplyError(`answered PASV without an address and port we can use (${oneLine(text)})`));
    await fuzz(fc.tuple(fc.array(fc.integer({ min: 0, max: 255 }), { minLength: 4, maxLength: 4 }), fc.integer({ min: 1, max: 65535 })), 200, async ([octets, port]) => {
      expect(pasv(`227 Entering Passive Mode (${octets.join(",")},${port >> 8},${port & 255}).`)).toEqual({ host: octets.join("."), port });
    });
  });

  it("any text at all: a port from 1 to 65535 and a dotted address of octets, or an FtpReplyError", async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 60 }),
      fc.array(fc.oneof(fc.integer({ min: -5, max: 70_000 }).map(String), fc.constantFrom(",", "(", ")", "|", " ", "1", "255", "65535", "99999999999999999999")), { maxLength: 14 }).map((p) => p.join("")),
    );
    await fuzz(text, 500, async (t) => {
      for (const parse of [() => epsv(`229 ${t}`), () => pasv(`227 ${t}`)]) {
        let result: unknown;
        try {
          result = parse();
        } catch (error) {
          expect(error).toBeInstanceOf(FtpReplyError);
          continue;
        }
        const port = typeof result === "number" ? result : (result as { port: number }).port;
        expect(Number.isInteger(port) && port >= 1 && port <= 65535).toBe(true);
        if (typeof result !== "number") expect((result as { host: string }).host).toMatch(/^(25[0-5]|2[0-4]\d|1?\d?\d)(\.(25[0-5]|2[0-4]\d|1?\d?\d)){3}$/);
      }
    });
  });
});

describe("FEAT, PWD and SIZE", () => {
  it("reads the features of vsftpd, Pure-FTPd and ProFTPD as they answer FEAT", () => {
    const vsftpd = "211-Features:\n EPRT\n EPSV\n MDTM\n PASV\n REST STREAM\n SIZE\n TVFS\n211 End";
    const pureFtpd = "211-Extensions supported:\n UTF8\n EPRT\n MLST type*;size*;sizd*;modify*;UNIX.mode*;UNIX.uid*;UNIX.gid*;unique*;\n MLSD\n AUTH TLS\n EPSV\n211 End.";
    const proftpd = "211-Features:\n AUTH TLS\n EPSV\n LANG C.UTF-8*\n MLST modify*;perm*;size*;type*;unique*;UNIX.group*;\n SIZE\n211 End";
    expect([...parseFeatures({ code: 211, text: vsftpd })]).toEqual(["EPRT", "EPSV", "MDTM", "PASV", "REST", "SIZE", "TVFS"]);
    expect(parseFeatures({ code: 211, text: pureFtpd }).has("MLST")).toBe(true);
    expect(parseFeatures({ code: 211, text: proftpd }).has("MLST")).toBe(true);
    // Not a feature list: the first and the last line, a line without its leading space, another code.
    expect([...parseFeatures({ code: 211, text: "211-MLST\nMLST\n211 MLST" })]).toEqual([]);
    expect([...parseFeatures({ code: 500, text: "500-x\n MLST\n500 Unknown command" })]).toEqual([]);
  });

  it("PWD's quoted directory, doubled quotes undone; SIZE only as whole digits", () => {
    expect(parsePwd({ code: 257, text: '257 "/home/a ""b""" is the current directory' })).toBe('/home/a "b"');
    expect(parsePwd({ code: 257, text: "257 no quotes" })).toBeNull();
    expect(parsePwd({ code: 550, text: '550 "/x"' })).toBeNull();
    expect(parseSize({ code: 213, text: "213 9007199254740991" })).toBe(9_007_199_254_740_991);
    for (const text of ["213 9007199254740992", "213 -1", "213 1e3", "213 0x10", "213 ", "213 12 bytes", `213 ${"9".repeat(400)}`]) expect(parseSize({ code: 213, text })).toBeNull();
    expect(parseSize({ code: 550, text: "550 12" })).toBeNull();
  });
});

describe("times and listings", () => {
  it("a time whose parts are out of range is no time, never another one", () => {
    expect(ftpTime("20261125214005")).toBe("2026-11-25T21:40:05.000Z");
    expect(ftpTime("20261125214005.5")).toBe("2026-11-25T21:40:05.500Z");
    for (const t of ["20260231000000", "20261325000000", "20261100000000", "20261125240000", "20261125236000", "00501125000000", "2026112521400", "20261125214005.1234", ""]) expect(ftpTime(t)).toBeNull();
  });

  it("any listing bytes: entries with a name, a whole size and a real time or none; never . or ..", async () => {
    const line = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.tuple(fc.constantFrom("-", "d", "l", "x"), fc.string({ maxLength: 12 }), fc.oneof(fc.nat().map(String), fc.constantFrom("99999999999999999999", "-1")), fc.constantFrom("Jan", "Feb", "Xyz", "feb"), fc.integer({ min: 0, max: 99 }), fc.constantFrom("12:00", "99:99", "2024", "0000", "24:60"), fc.constantFrom(".", "..", "a b", "x -> y", " ")).map(
        ([t, perm, size, mon, day, time, name]) => `${t}rw-r--r--${perm} 1 u g ${size} ${mon} ${day} ${time} ${name}`,
      ),
      fc.tuple(fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), fc.integer({ min: 0, max: 99 }), fc.constantFrom("AM", "PM", "XM"), fc.oneof(fc.constant("<DIR>"), fc.nat().map(String)), fc.string({ maxLength: 10 })).map(
        ([m, d, h, min, ap, size, name]) => `${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}-26  ${h}:${String(min).padStart(2, "0")}${ap}  ${size} ${name}`,
      ),
      fc.tuple(fc.constantFrom("file", "dir", "cdir", "pdir", "OS.unix=slink", ""), fc.oneof(fc.nat().map(String), fc.constantFrom("", "x", "-3", "1e9")), fc.string({ maxLength: 16 }), fc.string({ maxLength: 12 })).map(
        ([type, size, modify, name]) => `type=${type};size=${size};modify=${modify}; ${name}`,
      ),
    );
    await fuzz(fc.tuple(fc.array(line, { maxLength: 12 }), fc.constantFrom("\r\n", "\n"), fc.boolean()), 500, async ([lines, eol, mlsd]) => {
      for (const file of parseListing(bytes(lines.join(eol)), mlsd, new Date("2026-11-25T21:00:00Z"))) {
        expect(file.name.length).toBeGreaterThan(0);
        expect([".", ".."]).not.toContain(file.name);
        expect(Number.isSafeInteger(file.size) && file.size >= 0).toBe(true);
        if (file.modifiedAt !== null) expect(new Date(file.modifiedAt).toISOString()).toBe(file.modifiedAt);
        expect(typeof file.isDirectory).toBe("boolean");
      }
    });
  });

  it("MLSD facts as Pure-FTPd and ProFTPD send them", () => {
    expect(parseFacts("type=file;size=5;modify=20261128163409;UNIX.mode=0644;UNIX.uid=1001;UNIX.gid=1001;unique=fe00g20c321; x")).toEqual({ name: "x", size: 5, modifiedAt: "2026-11-28T16:34:09.000Z", isDirectory: false });
    expect(parseFacts("type=dir;sizd=4096;modify=20261128163359;UNIX.mode=0755; archive")).toEqual({ name: "archive", size: 0, modifiedAt: "2026-11-28T16:33:59.000Z", isDirectory: true });
    expect(parseFacts("modify=20261128163426;perm=adfrw;size=5;type=file;unique=FE00U20C747;UNIX.ownername=tester; /upload/x")).toEqual({ name: "x", size: 5, modifiedAt: "2026-11-28T16:34:26.000Z", isDirectory: false });
    expect(parseFacts("type=cdir;sizd=4096;modify=20261128163409; .")).toBeNull();
    // A file whose size cannot be read is not listed with a made-up one.
    expect(parseFacts("type=file;size=lots; x")).toBeNull();
    expect(parseFacts("type=file;modify=20261128163409; x")).toBeNull();
  });

  it("LIST lines with sizes or times out of range", () => {
    const now = new Date("2026-11-25T21:00:00Z");
    expect(parseListLine("-rw-r--r--    1 ftp ftp 99999999999999999999 Nov 25 20:59 big.csv", now)).toBeNull();
    expect(parseListLine("-rw-r--r--    1 ftp ftp 12 Feb 31 20:59 odd.csv", now)).toEqual({ name: "odd.csv", size: 12, modifiedAt: null, isDirectory: false });
    expect(parseListLine("-rw-r--r--    1 ftp ftp 12 Nov 25 25:99 odd.csv", now)).toEqual({ name: "odd.csv", size: 12, modifiedAt: null, isDirectory: false });
    expect(parseListLine("13-45-26  09:40PM  2048 answers.csv", now)).toEqual({ name: "answers.csv", size: 2048, modifiedAt: null, isDirectory: false });
    expect(parseListLine("11-25-26  13:40PM  2048 answers.csv", now)).toBeNull();
  });
});
