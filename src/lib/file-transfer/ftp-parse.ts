// Everything the FTP connector (./ftp.ts) reads from a server, as pure functions: replies on the
// control connection, the passive addresses (EPSV, PASV), FEAT, PWD, SIZE and MDTM, and listings
// (MLSD/MLST facts, LIST lines). A server may be hostile or broken: each parser is bounded in the
// memory and time it takes, and says in words what it could not read (FtpReplyError), which the
// session turns into a FileTransferError naming the server. Fuzzed by test/lib/file-transfer/ftp-parse.test.ts.
import type { RemoteFile } from "./transfer";

export type Reply = { code: number; text: string };

/** What a server sent that is not FTP as we can use it; the message reads after "the FTP server host:port". */
export class FtpReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "FtpReplyError";
  }
}

/**
 * A reply longer than this is not FTP (a wrong port, a server speaking another protocol, one that
 * never ends a multi-line reply). FEAT, the longest reply we read, is well under 1 KiB on vsftpd,
 * Pure-FTPd and ProFTPD.
 */
export const MAX_REPLY_CHARS = 64 * 1024;

const quoted = (text: string) => JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text);

/**
 * Replies off the control connection's bytes, however they are split across reads. A reply is one
 * line `ddd text` (or a bare `ddd`), or lines from `ddd-` to the first line starting `ddd ` with the
 * same code (RFC 959 4.2); a line ends with CRLF or a bare LF. Each byte is looked at once (a
 * server that sends a byte at a time costs no more than one that sends it all), and what is held
 * never exceeds MAX_REPLY_CHARS plus one read.
 */
export class ReplyReader {
  private decoder = new TextDecoder();
  private buffer = "";
  /** Where the next line of the reply being read starts in `buffer`. */
  private lineStart = 0;
  /** How far `buffer` is known to hold no line end: a line that comes a byte at a time is not scanned again and again. */
  private scanned = 0;
  /** The code of the multi-line reply being read, once its first line is in. */
  private code: string | null = null;

  push(bytes: Uint8Array): void {
    this.buffer += this.decoder.decode(bytes, { stream: true });
  }

  /** The next complete reply (lines joined with \n, line ends removed), or null until more bytes come. */
  take(): Reply | null {
    for (;;) {
      const end = this.buffer.indexOf("\n", Math.max(this.lineStart, this.scanned));
      if (end < 0) {
        this.scanned = this.buffer.length;
        if (this.buffer.length > MAX_REPLY_CHARS) throw new FtpReplyError(`does not speak FTP (${MAX_REPLY_CHARS} characters without a complete reply)`);
        return null;
      }
      const line = this.buffer.slice(this.lineStart, end).replace(/\r$/, "");
      if (this.code === null) {
        const first = /^([1-6]\d\d)([ -]|$)/.exec(line);
        if (!first) throw new FtpReplyError(`does not speak FTP (it said ${quoted(line)})`);
        if (first[2] !== "-") return this.complete(end, Number(first[1]));
        this.code = first[1];
      } else if (line.startsWith(`${this.code} `) || line === this.code) return this.complete(end, Number(this.code));
      this.lineStart = end + 1;
    }
  }

  private complete(end: number, code: number): Reply {
    const text = this.buffer
      .slice(0, end)
      .split("\n")
      .map((line) => line.replace(/\r$/, ""))
      .join("\n");
    this.buffer = this.buffer.slice(end + 1);
    this.lineStart = 0;
    this.scanned = 0;
    this.code = null;
    return { code, text };
  }
}

/** RFC 2428's `229 … (|||port|)`, the delimiter any printable character but a digit: the port, or why not. */
export function parseEpsv(reply: Reply): number {
  const m = /\(([!-/:-~])\1\1(\d{1,5})\1\)/.exec(reply.text);
  const port = m ? Number(m[2]) : NaN;
  if (!(port >= 1 && port <= 65535)) throw new FtpReplyError(`answered EPSV without a port we can use (${oneLine(reply.text)})`);
  return port;
}

/** RFC 959's `227 … (h1,h2,h3,h4,p1,p2)`: the address and port named, each number checked. */
export function parsePasv(reply: Reply): { host: string; port: number } {
  const m = /(?<!\d)(\d{1,3}),(\d{1,3}),(\d{1,3}),(\d{1,3}),(\d{1,3}),(\d{1,3})(?!\d)/.exec(reply.text);
  const numbers = m ? m.slice(1).map(Number) : [];
  const port = numbers[4] * 256 + numbers[5];
  if (!m || numbers.some((n) => n > 255) || !(port >= 1)) throw new FtpReplyError(`answered PASV without an address and port we can use (${oneLine(reply.text)})`);
  return { host: numbers.slice(0, 4).join("."), port };
}

/** The feature names in a 211 FEAT reply (RFC 2389: one per line between the first and the last, after a space), upper-cased. */
export function parseFeatures(reply: Reply): Set<string> {
  const features = new Set<string>();
  if (reply.code !== 211) return features;
  const lines = reply.text.split("\n");
  for (const line of lines.slice(1, -1)) {
    const name = /^\s+([A-Za-z0-9]+)/.exec(line);
    if (name) features.add(name[1].toUpperCase());
  }
  return features;
}

/** The directory in a 257 PWD reply (`257 "/a ""b"""`), or null. */
export function parsePwd(reply: Reply): string | null {
  if (reply.code !== 257) return null;
  const dir = /"((?:[^"]|"")*)"/.exec(reply.text);
  return dir ? dir[1].replace(/""/g, '"') : null;
}

/** A 213 SIZE reply's byte count, or null (another code, or not a size). */
export function parseSize(reply: Reply): number | null {
  if (reply.code !== 213) return null;
  return byteCount(reply.text.slice(4).trim());
}

/** A 213 MDTM reply's time (UTC), or null. */
export function parseMdtm(reply: Reply): string | null {
  return reply.code === 213 ? ftpTime(reply.text.slice(4).trim()) : null;
}

/** A size as decimal digits, exactly representable; anything else is null. */
function byteCount(value: string | undefined): number | null {
  if (!value || !/^\d{1,16}$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}

/** Milliseconds since 1970 for a calendar time whose every part is in range (no rolling 31 Feb into March), else null. */
function utc(year: number, month: number, day: number, hour: number, minute: number, second = 0, ms = 0): number | null {
  if (year < 1000 || month < 0 || month > 11 || day < 1 || hour > 23 || minute > 59 || second > 60) return null;
  const time = Date.UTC(year, month, day, hour, minute, Math.min(second, 59), ms);
  return new Date(time).getUTCDate() === day ? time : null;
}

/** "20261125214005" or "20261125214005.123" (MDTM, MLSD's modify fact: UTC) as ISO 8601, else null. */
export function ftpTime(value: string | undefined): string | null {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(?:\.(\d{1,3}))?$/.exec(value ?? "");
  if (!m) return null;
  const ms = m[7] ? Number(m[7].padEnd(3, "0")) : 0;
  const time = utc(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]), ms);
  return time === null ? null : new Date(time).toISOString();
}

/** MLSD/MLST facts ("type=file;size=12;modify=2026…; name"); null for `.`, `..` and a line without a usable size. */
export function parseFacts(line: string): RemoteFile | null {
  const space = line.indexOf(" ");
  if (space < 0) return null;
  const facts = new Map<string, string>();
  for (const fact of line.slice(0, space).split(";")) {
    const eq = fact.indexOf("=");
    if (eq > 0) facts.set(fact.slice(0, eq).toLowerCase(), fact.slice(eq + 1));
  }
  const type = (facts.get("type") ?? "").toLowerCase();
  if (type === "cdir" || type === "pdir") return null;
  const isDirectory = type === "dir";
  // A directory may come without a size (Pure-FTPd gives `sizd`); a file's size must be readable.
  const size = facts.has("size") ? byteCount(facts.get("size")) : isDirectory ? 0 : null;
  const path = line.slice(space + 1);
  const name = path.slice(path.lastIndexOf("/") + 1);
  if (size === null || name === "" || name === "." || name === "..") return null;
  return { name, size, modifiedAt: ftpTime(facts.get("modify")), isDirectory };
}

const MONTHS = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"];

/** One line of LIST in the Unix (ls -l) or the DOS (IIS) format; null for anything else ("total 8"). Times as UTC, to the minute. */
export function parseListLine(line: string, now = new Date()): RemoteFile | null {
  const unix = /^([-dlbcps])[-\w]{9}\S*\s+\d+\s+\S+\s+\S+\s+(\d+)\s+([A-Za-z]{3})\s+(\d{1,2})\s+(\d{1,2}:\d{2}|\d{4})\s(.+)$/.exec(line);
  if (unix) {
    const [, type, sizeText, monthName, day, timeOrYear, rest] = unix;
    const month = MONTHS.indexOf(monthName.toLowerCase());
    let name = rest;
    if (type === "l") name = name.split(" -> ")[0];
    const size = byteCount(sizeText);
    if (name === "." || name === ".." || size === null) return null;
    let time: number | null = null;
    if (timeOrYear.includes(":")) {
      // ls leaves the year out for the last six months: this year, or last year for a date ahead of now.
      const [h, min] = timeOrYear.split(":").map(Number);
      time = utc(now.getUTCFullYear(), month, Number(day), h, min);
      if (time !== null && time > now.getTime() + 86_400_000) time = utc(now.getUTCFullYear() - 1, month, Number(day), h, min);
    } else time = utc(Number(timeOrYear), month, Number(day), 0, 0);
    return { name, size, modifiedAt: time === null ? null : new Date(time).toISOString(), isDirectory: type === "d" };
  }
  const dos = /^(\d{2})-(\d{2})-(\d{2}|\d{4})\s+(\d{1,2}):(\d{2})\s*([AP]M)\s+(<DIR>|\d+)\s+(.+)$/i.exec(line);
  if (dos) {
    const [, mm, dd, yy, hh, min, ampm, sizeOrDir, name] = dos;
    const year = yy.length === 2 ? 2000 + Number(yy) : Number(yy);
    const isDirectory = sizeOrDir.toUpperCase() === "<DIR>";
    const size = isDirectory ? 0 : byteCount(sizeOrDir);
    if (size === null || Number(hh) > 12) return null;
    const time = utc(year, Number(mm) - 1, Number(dd), (Number(hh) % 12) + (ampm.toUpperCase() === "PM" ? 12 : 0), Number(min));
    return { name, size, modifiedAt: time === null ? null : new Date(time).toISOString(), isDirectory };
  }
  return null;
}

/** A listing's bytes (MLSD facts, or LIST lines), the entries we can read; `.` and `..` and other lines left out. */
export function parseListing(bytes: Uint8Array, mlsd: boolean, now = new Date()): RemoteFile[] {
  const files: RemoteFile[] = [];
  for (const line of new TextDecoder().decode(bytes).split(/\r?\n/)) {
    if (line.length === 0) continue;
    const file = mlsd ? parseFacts(line) : parseListLine(line, now);
    if (file) files.push(file);
  }
  return files;
}

/** A reply on one line, for a message. */
export function oneLine(text: string): string {
  const flat = text.replace(/\s*\n\s*/g, " ");
  return flat.length > 200 ? `${flat.slice(0, 200)}…` : flat;
}
