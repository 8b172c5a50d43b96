// Form bodies as PHP (and so Laravel) reads them: urlencoded or multipart fields whose keys use
// bracket notation (a[b][c], a[0][b], a[]) decoded into the object the same order sent as JSON gives.
import { assertWithinBodyLimit, type Charset, charsetOf, decodeStrictly, utf8Size } from "./charset";
import { ApiError } from "./errors";
import { boundaryOf, partHeaders } from "./multipart";

/**
 * Bounds of a form body. maxFields fits a 500-line order that sends every line field and a few
 * custom keys per line (500 x 40); maxDepth fits the deepest valid key,
 * products[0][custom][a][b][c][d][e] (8 parts: custom is 5 levels deep at most).
 */
export const FORM_LIMITS = { maxFields: 20_000, maxDepth: 8, maxKeyLength: 512 } as const;

export type FormValue = string | File;

const bad = (error: string) => ApiError.badRequest(error);
const shown = (key: string) => JSON.stringify(key.length > 80 ? `${key.slice(0, 80)}…` : key);

/** "a[b][]" -> ["a", "b", ""]; anything PHP would silently rewrite or drop is refused instead. */
export function parseKey(key: string): string[] {
  if (key.length > FORM_LIMITS.maxKeyLength) {
    throw bad(`The form key ${shown(key)} is longer than ${FORM_LIMITS.maxKeyLength} characters.`);
  }
  const open = key.indexOf("[");
  const base = open === -1 ? key : key.slice(0, open);
  if (base === "") throw bad(`The form key ${shown(key)} has no name before its brackets.`);
  if (base.includes("]")) throw bad(`The form key ${shown(key)} has a closing bracket without an opening one.`);
  const parts = [base];
  for (let at = open; at !== -1 && at < key.length; ) {
    if (key[at] !== "[") throw bad(`The form key ${shown(key)} has text after a closing bracket.`);
    const close = key.indexOf("]", at);
    if (close === -1) throw bad(`The form key ${shown(key)} has an unclosed bracket.`);
    const part = key.slice(at + 1, close);
    if (part.includes("[")) throw bad(`The form key ${shown(key)} has a bracket inside brackets.`);
    parts.push(part);
    if (parts.length > FORM_LIMITS.maxDepth) {
      throw bad(`The form key ${shown(key)} is nested deeper than ${FORM_LIMITS.maxDepth} levels.`);
    }
    at = close + 1;
  }
  return parts;
}

type Branch = { children: Map<string, Node>; appends: boolean };
type Node = { leaf: string } | Branch;
const isBranch = (node: Node): node is Branch => "children" in node;

/**
 * Fields -> one object. A key may be given once; a name that is both a value and a group
 * (a=1&a[b]=2), a group mixing a[] with named or numbered members, or a file among the fields is
 * refused. Numbered members 0..n-1 (in any order) become a list, as PHP's json_encode makes them;
 * any other set of members (gaps, products[99999999]) becomes an object, which validation then
 * refuses where a list is expected.
 */
export function decodeFormFields(fields: Iterable<[string, FormValue]>): Record<string, unknown> {
  const root: Branch = { children: new Map(), appends: false };
  let count = 0;
  for (const [key, value] of fields) {
    if (++count > FORM_LIMITS.maxFields) throw bad(`The form body has more than ${FORM_LIMITS.maxFields} fields.`);
    const parts = parseKey(key);
    const path: string[] = [];
    let node: Branch = root;
    parts.forEach((part, i) => {
      if (part === "" ? node.children.size > 0 && !node.appends : node.appends) {
        throw bad(`The form key ${shown(key)} mixes [] with named or numbered members of ${shown(path.join("."))}.`);
      }
      if (part === "") node.appends = true;
      const name = part === "" ? String(node.children.size) : part;
      path.push(name);
      const existing = node.children.get(name);
      if (i === parts.length - 1) {
        if (existing) {
          throw bad(
            isBranch(existing)
              ? `The form key ${shown(key)} gives a value to ${shown(path.join("."))}, which other keys use as a group.`
              : `The form key ${shown(key)} is sent more than once.`,
          );
        }
        if (typeof value !== "string") {
          const field = path.join(".");
          throw ApiError.validation({ [field]: [`The ${field} field must be text, not a file.`] });
        }
        node.children.set(name, { leaf: value });
        return;
      }
      if (existing && !isBranch(existing)) {
        throw bad(`The form key ${shown(key)} uses ${shown(path.join("."))} as a group, which another key gives a value.`);
      }
      const next: Branch = existing ?? { children: new Map(), appends: false };
      if (!existing) node.children.set(name, next);
      node = next;
    });
  }
  // No field at all is an object without fields (validation names the missing ones), not an empty list.
  return root.children.size === 0 ? {} : (toObject(root) as Record<string, unknown>);
}

function toValue(node: Node): unknown {
  return isBranch(node) ? toObject(node) : node.leaf;
}

function toObject(branch: Branch): unknown {
  const { children } = branch;
  if (branch.appends) return [...children.values()].map(toValue);
  const list: unknown[] = [];
  for (const [name, child] of children) {
    if (!/^(0|[1-9]\d{0,8})$/.test(name) || Number(name) >= children.size) {
      // Object.fromEntries defines own properties: a "__proto__" key stays a plain key, as in JSON.parse.
      return Object.fromEntries([...children].map(([k, v]) => [k, toValue(v)]));
    }
    list[Number(name)] = toValue(child);
  }
  return list;
}

/**
 * application/x-www-form-urlencoded -> fields, in order. "+" is a space; a "%" that starts no
 * valid escape stays as it is (as PHP and URLSearchParams read it); the decoded bytes must be text
 * in the body's charset (UTF-8 unless its Content-Type declares another, src/lib/charset.ts).
 */
export function parseUrlEncoded(body: Uint8Array, charset: Charset = "UTF-8"): [string, string][] {
  const fields: [string, string][] = [];
  // What the text grows by in UTF-8 (a single-byte charset's bytes from 0x80 take 2 or 3 bytes).
  let grown = 0;
  const decode = (from: number, to: number) => {
    const out = new Uint8Array(to - from);
    let n = 0;
    for (let i = from; i < to; i++) {
      const b = body[i];
      if (b === 0x2b) out[n++] = 0x20;
      else if (b === 0x25 && i + 2 < to && isHex(body[i + 1]) && isHex(body[i + 2])) {
        out[n++] = (hexValue(body[i + 1]) << 4) | hexValue(body[i + 2]);
        i += 2;
      } else out[n++] = b;
    }
    const text = decodeStrictly(out.subarray(0, n), charset);
    if (!text.ok) throw bad(`The form body is not valid ${charset} once its %-escapes are decoded.`);
    if (charset !== "UTF-8") grown += Math.max(0, utf8Size(text.text) - n);
    return text.text;
  };
  let start = 0;
  while (start <= body.length) {
    let end = body.indexOf(0x26, start);
    if (end === -1) end = body.length;
    if (end > start) {
      let eq = body.indexOf(0x3d, start);
      if (eq === -1 || eq > end) eq = end;
      fields.push([decode(start, eq), eq < end ? decode(eq + 1, end) : ""]);
      if (fields.length > FORM_LIMITS.maxFields) throw bad(`The form body has more than ${FORM_LIMITS.maxFields} fields.`);
    }
    start = end + 1;
  }
  assertWithinBodyLimit(body.length + grown, charset);
  return fields;
}

export const MALFORMED_MULTIPART = "Malformed multipart/form-data body";

const crlf = (b: Uint8Array, at: number) => b[at] === 0x0d && b[at + 1] === 0x0a;

/**
 * A whole multipart/form-data body (RFC 7578) -> fields, in order. A text part's value is decoded
 * in the charset its own Content-Type declares, else the one the body's Content-Type declares, else
 * UTF-8; a part with a filename is a file (which decodeFormFields refuses in an order).
 */
export function parseMultipart(body: Uint8Array, contentType: string, defaultCharset: Charset): [string, FormValue][] {
  const boundary = boundaryOf(contentType);
  if (!boundary) throw bad(MALFORMED_MULTIPART);
  const delimiter = new TextEncoder().encode(`--${boundary}`);
  const find = (from: number) => {
    outer: for (let i = from; i <= body.length - delimiter.length; i++) {
      // A delimiter starts the body or a line.
      if (i > 0 && !(i >= 2 && crlf(body, i - 2))) continue;
      for (let j = 0; j < delimiter.length; j++) if (body[i + j] !== delimiter[j]) continue outer;
      return i;
    }
    return -1;
  };
  const fields: [string, FormValue][] = [];
  // What text parts in a single-byte charset grow by in UTF-8.
  let grown = 0;
  let grownIn = defaultCharset;
  let at = find(0);
  if (at === -1) throw bad(MALFORMED_MULTIPART);
  for (;;) {
    const after = at + delimiter.length;
    if (body[after] === 0x2d && body[after + 1] === 0x2d) {
      // "--": the closing delimiter.
      assertWithinBodyLimit(body.length + grown, grownIn);
      return fields;
    }
    if (!crlf(body, after)) throw bad(MALFORMED_MULTIPART);
    const next = find(after + 2);
    if (next === -1) throw bad(MALFORMED_MULTIPART);
    const part = body.subarray(after + 2, next - 2);
    const headEnd = indexOfHeadEnd(part);
    if (headEnd === -1) throw bad(MALFORMED_MULTIPART);
    const head = decodeStrictly(part.subarray(0, headEnd), "UTF-8");
    if (!head.ok) throw bad("A form part's headers are not valid UTF-8.");
    const { name, filename, contentType } = partHeaders(head.text);
    if (name === undefined) throw bad(MALFORMED_MULTIPART);
    const content = part.subarray(headEnd + 4);
    if (filename !== undefined) {
      fields.push([name, new File([content], filename)]);
    } else {
      const charset = charsetOf(contentType, defaultCharset);
      const value = decodeStrictly(content, charset);
      if (!value.ok) throw bad(`The form field ${shown(name)} is not valid ${charset}.`);
      if (charset !== "UTF-8") {
        grown += Math.max(0, utf8Size(value.text) - content.length);
        grownIn = charset;
      }
      fields.push([name, value.text]);
    }
    if (fields.length > FORM_LIMITS.maxFields) throw bad(`The form body has more than ${FORM_LIMITS.maxFields} fields.`);
    at = next;
  }
}

function indexOfHeadEnd(part: Uint8Array): number {
  for (let i = 0; i + 3 < part.length; i++) if (crlf(part, i) && crlf(part, i + 2)) return i;
  return -1;
}

const isHex = (b: number | undefined) =>
  b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));
const hexValue = (b: number) => (b <= 0x39 ? b - 0x30 : (b | 0x20) - 0x61 + 10);
