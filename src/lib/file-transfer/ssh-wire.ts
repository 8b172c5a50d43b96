// The wire encodings of SSH (RFC 4251 §5): building and reading messages field by field.
const utf8 = new TextEncoder();
const fromUtf8 = new TextDecoder();

export function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const p of parts) length += p.length;
  const out = new Uint8Array(length);
  let at = 0;
  for (const p of parts) out.set(p, at), (at += p.length);
  return out;
}

/** Builds a message: byte, boolean, uint32, uint64, string, mpint, name-list. */
export class Writer {
  private parts: Uint8Array[] = [];
  byte(n: number) {
    this.parts.push(Uint8Array.of(n));
    return this;
  }
  bool(b: boolean) {
    return this.byte(b ? 1 : 0);
  }
  u32(n: number) {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, n >>> 0);
    this.parts.push(b);
    return this;
  }
  u64(n: number) {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigUint64(0, BigInt(n));
    this.parts.push(b);
    return this;
  }
  string(s: string | Uint8Array) {
    const bytes = typeof s === "string" ? utf8.encode(s) : s;
    this.u32(bytes.length);
    this.parts.push(bytes);
    return this;
  }
  /** A non-negative integer given as big-endian bytes (RFC 4251 §5, mpint). */
  mpint(unsigned: Uint8Array) {
    let start = 0;
    while (start < unsigned.length && unsigned[start] === 0) start++;
    const digits = unsigned.subarray(start);
    return this.string(digits.length && digits[0] & 0x80 ? concat([Uint8Array.of(0), digits]) : digits);
  }
  raw(bytes: Uint8Array) {
    this.parts.push(bytes);
    return this;
  }
  done(): Uint8Array {
    return concat(this.parts);
  }
}

/** Reads a message; reading past its end is a protocol error. */
export class Reader {
  private at = 0;
  constructor(private readonly bytes: Uint8Array) {}
  private take(n: number): Uint8Array {
    if (this.at + n > this.bytes.length) throw new SshProtocolError("a message from the server ended early");
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  byte() {
    return this.take(1)[0];
  }
  bool() {
    return this.byte() !== 0;
  }
  u32() {
    const b = this.take(4);
    return new DataView(b.buffer, b.byteOffset, 4).getUint32(0);
  }
  u64() {
    const b = this.take(8);
    return Number(new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0));
  }
  bytesField() {
    return this.take(this.u32());
  }
  text() {
    return fromUtf8.decode(this.bytesField());
  }
  names() {
    const list = this.text();
    return list ? list.split(",") : [];
  }
  get remaining() {
    return this.bytes.length - this.at;
  }
}

/** Text from the server as a message may show it: printable, and not endless (the server chose its length). */
export function shown(text: string, max = 64): string {
  const printable = text.replace(/[^\x20-\x7e\u00a0-\u024f]/g, "?");
  return printable.length > max ? `${printable.slice(0, max - 3)}...` : printable;
}

/** A message that cannot be read as SSH: the connection says it in words (ssh.ts). */
export class SshProtocolError extends Error {}
