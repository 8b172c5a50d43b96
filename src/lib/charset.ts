// A request body's text by the charset its Content-Type declares: UTF-8 unless it names another we
// decode exactly. Bytes that are no character of that charset are refused, never replaced: a U+FFFD
// the client did not send would change its data (and could merge two orders into one).
import { ApiError, MAX_BODY_BYTES } from "./errors";

export type Charset = "UTF-8" | "ISO-8859-1" | "windows-1252" | "US-ASCII";

const LABELS: Record<string, Charset> = {
  "utf-8": "UTF-8",
  utf8: "UTF-8",
  "iso-8859-1": "ISO-8859-1",
  "iso8859-1": "ISO-8859-1",
  latin1: "ISO-8859-1",
  "windows-1252": "windows-1252",
  cp1252: "windows-1252",
  "us-ascii": "US-ASCII",
  ascii: "US-ASCII",
};

const SUPPORTED = "utf-8 (the default), iso-8859-1 (latin1), windows-1252 (cp1252) or us-ascii";
const OTHERS = "iso-8859-1 (latin1), windows-1252 (cp1252) or us-ascii";

/** The charset a media type's parameters declare (UTF-8 when none); one we do not decode is a 415. */
export function charsetOf(contentType: string | undefined, fallback: Charset = "UTF-8"): Charset {
  const m = /;\s*charset\s*=\s*(?:"([^"]*)"|([^;\s]*))/i.exec(contentType ?? "");
  if (!m) return fallback;
  const label = m[1] ?? m[2];
  const charset = LABELS[label.toLowerCase()];
  if (!charset) {
    const shown = JSON.stringify(label.length > 40 ? `${label.slice(0, 40)}…` : label);
    throw new ApiError(415, "Unsupported Media Type", { error: `The charset ${shown} is not supported. Send the body as ${SUPPORTED}.` });
  }
  return charset;
}

// windows-1252's characters at 0x80-0x9F (the Unicode Consortium's CP1252.TXT); 0 marks the five
// bytes it leaves undefined. Every other byte is the ISO-8859-1 character of the same number.
const CP1252_HIGH = [
  0x20ac, 0, 0x201a, 0x0192, 0x201e, 0x2026, 0x2020, 0x2021, 0x02c6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017d, 0,
  0, 0x2018, 0x2019, 0x201c, 0x201d, 0x2022, 0x2013, 0x2014, 0x02dc, 0x2122, 0x0161, 0x203a, 0x0153, 0, 0x017e, 0x0178,
];

// ignoreBOM keeps a U+FEFF as the content it is: only a whole body's leading one is no content (decodeBody).
const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const utf16 = new TextDecoder("utf-16le", { fatal: false, ignoreBOM: true });

/** Where the first byte that starts no valid UTF-8 sequence is (RFC 3629's table), or -1. */
function firstInvalidUtf8(b: Uint8Array): number {
  for (let i = 0; i < b.length; ) {
    const x = b[i];
    if (x < 0x80) {
      i++;
      continue;
    }
    const tail = x >= 0xc2 && x <= 0xdf ? 1 : x >= 0xe0 && x <= 0xef ? 2 : x >= 0xf0 && x <= 0xf4 ? 3 : 0;
    if (tail === 0) return i;
    // The second byte's narrower ranges rule out overlong forms, surrogates and code points past U+10FFFF.
    const lo = x === 0xe0 ? 0xa0 : x === 0xf0 ? 0x90 : 0x80;
    const hi = x === 0xed ? 0x9f : x === 0xf4 ? 0x8f : 0xbf;
    if (!(b[i + 1] >= lo && b[i + 1] <= hi)) return i;
    for (let k = 2; k <= tail; k++) if (!(b[i + k] >= 0x80 && b[i + k] <= 0xbf)) return i;
    i += tail + 1;
  }
  return -1;
}

/** The first byte that is no character of a single-byte charset, or -1. */
function firstInvalidSingleByte(b: Uint8Array, charset: Charset): number {
  if (charset === "ISO-8859-1") return -1;
  for (let i = 0; i < b.length; i++) {
    if (b[i] < 0x80) continue;
    if (charset === "US-ASCII" || (b[i] <= 0x9f && CP1252_HIGH[b[i] - 0x80] === 0)) return i;
  }
  return -1;
}

function singleByte(b: Uint8Array, charset: Charset): string {
  const units = new Uint16Array(b.length);
  for (let i = 0; i < b.length; i++) {
    const x = b[i];
    units[i] = charset === "windows-1252" && x >= 0x80 && x <= 0x9f ? CP1252_HIGH[x - 0x80] : x;
  }
  // The code units as UTF-16 (none is a surrogate): one native decode. Typed arrays are little-endian wherever Workers run.
  return utf16.decode(units);
}

/** The text, or where the first byte that is no character of the charset is (offset -1: not found). */
export type DecodeResult = { ok: true; text: string } | { ok: false; charset: Charset; offset: number; byte: number | undefined };

/** Bytes -> text in `charset`, exactly (a U+FEFF they start with too: a form field's value keeps it). */
export function decodeStrictly(bytes: Uint8Array, charset: Charset): DecodeResult {
  if (charset === "UTF-8") {
    try {
      return { ok: true, text: utf8.decode(bytes) };
    } catch {
      const offset = firstInvalidUtf8(bytes);
      return { ok: false, charset, offset, byte: bytes[offset] };
    }
  }
  const offset = firstInvalidSingleByte(bytes, charset);
  return offset === -1 ? { ok: true, text: singleByte(bytes, charset) } : { ok: false, charset, offset, byte: bytes[offset] };
}

// ---- Writing -----------------------------------------------------------------

/** The single-byte charsets we write files in. */
export type SingleByteCharset = "ISO-8859-1" | "windows-1252";

// windows-1252's 27 characters at 0x80-0x9F, by code point: the same table read backwards.
const CP1252_BYTE = new Map(CP1252_HIGH.flatMap((cp, i) => (cp === 0 ? [] : [[cp, 0x80 + i] as const])));

/**
 * The byte a character is in a single-byte charset, or -1 when the charset has none for it.
 * windows-1252 has no byte for U+0080-U+009F (its 0x80-0x9F are other characters) and none at the
 * five bytes it leaves undefined: a C1 control is not written as a byte that a reader takes for €.
 */
export function byteOf(codePoint: number, charset: SingleByteCharset): number {
  if (codePoint < 0x80 || (codePoint >= 0xa0 && codePoint <= 0xff)) return codePoint;
  if (charset === "ISO-8859-1") return codePoint <= 0xff ? codePoint : -1;
  return CP1252_BYTE.get(codePoint) ?? -1;
}

/** The first character of a text that a single-byte charset cannot write, or null. */
export function firstUnwritable(text: string, charset: SingleByteCharset): { char: string; codePoint: number; index: number } | null {
  let index = 0;
  for (const char of text) {
    const codePoint = char.codePointAt(0)!;
    if (byteOf(codePoint, charset) === -1) return { char, codePoint, index };
    index += char.length;
  }
  return null;
}

/** A text as bytes of a single-byte charset; every character must be one it has (firstUnwritable says). */
export function encodeSingleByte(text: string, charset: SingleByteCharset): Uint8Array {
  const out = new Uint8Array(text.length);
  let n = 0;
  for (const char of text) {
    const byte = byteOf(char.codePointAt(0)!, charset);
    if (byte === -1) throw new RangeError(`U+${char.codePointAt(0)!.toString(16).toUpperCase()} has no byte in ${charset}`);
    out[n++] = byte;
  }
  return out.subarray(0, n);
}

/** A text's size in UTF-8 bytes. */
export function utf8Size(text: string): number {
  let size = text.length;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // U+0080-U+07FF: 2 bytes; the rest of the BMP: 3; a surrogate pair (two units): 4.
    if (unit >= 0x80) size += unit < 0x800 || (unit >= 0xd800 && unit <= 0xdfff) ? 1 : 2;
  }
  return size;
}

/**
 * The body limit holds for the text as it is kept (UTF-8), not only for the bytes as sent: a body
 * in a single-byte charset grows once decoded (é is two bytes, € three), and what lies downstream
 * (an order's lines travel as one D1 value, of at most 2 MB) is sized for 1 MiB. `size`: the body's
 * size with its text in UTF-8.
 */
export function assertWithinBodyLimit(size: number, charset: Charset): void {
  if (size <= MAX_BODY_BYTES) return;
  throw new ApiError(413, "Payload Too Large", {
    error: `The request body must not be larger than 1 MiB in UTF-8, as it is kept: this ${charset} body is ${size} bytes in UTF-8.`,
  });
}

const hex = (byte: number | undefined) => (byte === undefined ? "" : `0x${byte.toString(16).toUpperCase().padStart(2, "0")}`);

/** A whole body's text in the charset its Content-Type declares, or the 400 that says where it is not (413: too large in UTF-8). */
export function decodeBody(bytes: Uint8Array, contentType: string | undefined): string {
  const charset = charsetOf(contentType);
  const result = decodeStrictly(bytes, charset);
  if (result.ok) {
    // UTF-8 never grows: its text is at most the bytes sent. Its byte order mark at the start of the body is no content.
    if (charset !== "UTF-8") assertWithinBodyLimit(utf8Size(result.text), charset);
    return charset === "UTF-8" && result.text.startsWith("\ufeff") ? result.text.slice(1) : result.text;
  }
  const where = result.offset >= 0 ? ` (byte ${hex(result.byte)} at offset ${result.offset})` : "";
  throw ApiError.badRequest(
    `The body is not valid ${result.charset}${where}. Send UTF-8, or declare the charset the body is in: ${OTHERS}.`,
  );
}
