// Streaming readers for supplier files: bytes in, records mapped onto product fields out, one
// batch per chunk read. Nothing holds the whole file: CSV goes through csv-parse, XML through
// saxes, JSON through @streamparser/json, each fed as the bytes arrive.
import { JSONParser } from "@streamparser/json";
import { parse as csvParse } from "csv-parse/stream";
import { SaxesParser, type SaxesTagPlain } from "saxes";
import { PRODUCT_FIELDS, type FeedFormat, type ProductField } from "../db/schema";
import type { FieldSubject, RawFields } from "./product-row";
import { plural } from "../lib/plural";

/** The file as a whole cannot be used (unreachable, unreadable, wrong shape): nothing is applied. */
export class FeedError extends Error {}

export type FeedRecord = { line: number; fields: RawFields } | { line: number; sku: string | null; error: string };

/** What the file's own names are called, by format: its columns, fields or elements. */
export const NAME_NOUN: Record<FeedFormat, { one: string; many: string }> = {
  csv: { one: "column", many: "columns" },
  json: { one: "field", many: "fields" },
  xml: { one: "element", many: "elements" },
};
const KEPT_NAMES = 20;
/** A name kept longer than this is kept as its first 100 characters and "…": 20 names stay small in the import's record. */
export const KEPT_NAME_LENGTH = 100;
const keptName = (name: string) => (name.length > KEPT_NAME_LENGTH ? `${name.slice(0, KEPT_NAME_LENGTH)}…` : name);

/**
 * What the file's names turned out to mean, filled as the file streams: the product fields it
 * carries, and its columns (CSV), keys (JSON) or elements and attributes (XML) that no product
 * field reads, whose values are therefore not imported. At most 20 names of each are kept.
 */
export class ColumnReport {
  /** Product fields the file has a column (or, in some record, a value) for. */
  readonly found = new Set<ProductField>();
  /** A CSV header's own spelling of the columns it matched (ignoring case): what a rejected row names. */
  readonly headerNames: Partial<Record<ProductField, string>> = {};
  /** The file's names, read or not, in the file's order. */
  readonly names: string[] = [];
  /** The file's names no product field reads. */
  readonly unmapped: string[] = [];
  /** More names were not mapped than the 20 kept. */
  more = false;
  /** Records whose names were looked at (JSON, XML); a CSV file's header counts as one. */
  examined = 0;
  private readonly known = new Set<string>();

  note(name: string, read: boolean) {
    if (this.known.has(name) || name === "") return;
    if (this.known.size >= 4 * KEPT_NAMES) return;
    this.known.add(name);
    if (this.names.length < KEPT_NAMES) this.names.push(keptName(name));
    if (!read && this.unmapped.length < KEPT_NAMES) this.unmapped.push(keptName(name));
    else if (!read) this.more = true;
  }

  /** Nothing more to learn about the file's names: enough are known. */
  get full(): boolean {
    return this.known.size >= 4 * KEPT_NAMES;
  }

  /** A file whose names fill no product field but the SKU cannot describe a product. */
  get onlySku(): boolean {
    return this.examined > 0 && [...this.found].every((f) => f === "sku");
  }
}

const quoted = (names: string[]) => names.map((n) => `'${n}'`).join(", ");

/**
 * How a rejected row names a product field: as the file calls it (its column, field or element, the
 * header's spelling when the report knows it), with the product field beside it when they differ.
 */
export function fileFieldNames(format: FeedFormat, mapping: ReadOptions["mapping"], report?: ColumnReport): FieldSubject {
  return (field) => {
    const name = keptName(report?.headerNames[field] ?? mapping[field] ?? field);
    return `The ${NAME_NOUN[format].one} '${name}'${name === field ? "" : ` (${field})`}`;
  };
}

/** Why a file that fills no product field but the SKU is refused, naming what was expected and found. */
export function onlySkuMessage(format: FeedFormat, mapping: ReadOptions["mapping"], report: ColumnReport): string {
  const noun = NAME_NOUN[format];
  const expected = PRODUCT_FIELDS.map((f) => (mapping[f] ? `'${mapping[f]}' (${f})` : `'${f}'`)).join(", ");
  const found = report.names.length ? quoted(report.names) : "none";
  return (
    `No ${noun.one} of the file maps to a product field other than sku, so its products would have no name, price or stock; nothing was changed. ` +
    `Expected ${noun.many}: ${expected}; or set the feed's mapping to the file's own names. ${noun.many[0].toUpperCase()}${noun.many.slice(1)} found: ${found}.`
  );
}

/** The import's warning about the names it did not map, or null when it mapped them all. */
export function unmappedWarning(format: FeedFormat, report: ColumnReport): string | null {
  if (report.unmapped.length === 0) return null;
  const noun = NAME_NOUN[format];
  const empty = PRODUCT_FIELDS.filter((f) => !report.found.has(f));
  return (
    `Not imported: the file's ${plural(report.unmapped.length, noun)} ${quoted(report.unmapped)}` +
    `${report.more ? " and more" : ""} ${report.unmapped.length === 1 ? "maps" : "map"} to no product field.` +
    (empty.length ? ` Product fields the file left empty: ${empty.join(", ")}; name their ${noun.many} in the feed's mapping.` : "")
  );
}

export type ReadOptions = {
  format: FeedFormat;
  /** Product field -> the file's column/field name, as the feed states it explicitly. */
  mapping: Partial<Record<ProductField, string>>;
  csvDelimiter: string | null;
  recordPath: string | null;
  /** A WHATWG encoding label; null: UTF-8 (or what a BOM or the XML declaration says). */
  charset: string | null;
  maxBytes: number;
};

export const CSV_DELIMITERS = [",", ";", "\t", "|"] as const;
export const DEFAULT_XML_RECORD = "product";
const BATCH = 500;

// nodejs_compat provides Buffer at run time; csv-parse wants Buffer chunks (it slices and decodes them).
declare const Buffer: { from(text: string, encoding: "utf8"): Uint8Array };

/** The file's records in batches; `report` learns, as they stream, which of the file's names map to product fields. */
export function readFeed(body: ReadableStream<Uint8Array>, opts: ReadOptions, report = new ColumnReport()): AsyncGenerator<FeedRecord[]> {
  const text = textOf(bytesOf(body, opts.maxBytes), opts.charset, opts.format === "xml");
  if (opts.format === "csv") return csvRecords(text, opts, report);
  if (opts.format === "json") return jsonRecords(text, opts, report);
  return xmlRecords(text, opts, report);
}

/** The name each product field is read from: the mapping's, or the field's own. */
const readNames = (mapping: ReadOptions["mapping"]) => PRODUCT_FIELDS.map((f) => mapping[f] ?? f);

// ---- Bytes and text ---------------------------------------------------------

async function* chunksOf(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    // Early exit (a bad file, a size limit): stop downloading the rest.
    reader.cancel().catch(() => undefined);
  }
}

function streamOf(chunks: AsyncIterator<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await chunks.next();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    async cancel() {
      await chunks.return?.(undefined);
    },
  });
}

/** The body's bytes, gunzipped when it is a .gz file, and never more than maxBytes of them. */
async function* bytesOf(body: ReadableStream<Uint8Array>, maxBytes: number): AsyncGenerator<Uint8Array> {
  const raw = chunksOf(body);
  const first = await raw.next();
  if (first.done) return;
  async function* all() {
    yield first.value as Uint8Array;
    yield* raw;
  }
  // Suppliers often publish feed.csv.gz; a gzip Content-Encoding is already undone by fetch.
  const gzipped = first.value[0] === 0x1f && first.value[1] === 0x8b;
  const source = gzipped
    ? chunksOf(streamOf(all()).pipeThrough(new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>))
    : all();
  let total = 0;
  try {
    for await (const chunk of source) {
      total += chunk.byteLength;
      if (total > maxBytes) throw new FeedError(`The file is larger than ${Math.round(maxBytes / 1048576)} MiB.`);
      yield chunk;
    }
  } catch (error) {
    if (error instanceof FeedError) throw error;
    if (gzipped) throw new FeedError("The file is not a valid gzip file.");
    throw new FeedError(`The file could not be read to the end: ${String(error instanceof Error ? error.message : error)}`);
  }
}

function decoderFor(label: string): TextDecoder {
  try {
    // fatal: a file in another encoding than declared fails, rather than garbling every name.
    return new TextDecoder(label, { fatal: true, ignoreBOM: false });
  } catch {
    throw new FeedError(`The character encoding '${label}' is not supported.`);
  }
}

function sniffEncoding(first: Uint8Array, xml: boolean): string | null {
  if (first[0] === 0xff && first[1] === 0xfe) return "utf-16le";
  if (first[0] === 0xfe && first[1] === 0xff) return "utf-16be";
  if (!xml) return null;
  const head = String.fromCharCode(...first.subarray(0, 200));
  return /^(?:\uFEFF|\xEF\xBB\xBF)?\s*<\?xml[^>]*\sencoding\s*=\s*["']([\w.:-]+)["']/i.exec(head)?.[1] ?? null;
}

/** Text in the declared charset; a BOM is dropped (TextDecoder does that). */
async function* textOf(bytes: AsyncIterable<Uint8Array>, charset: string | null, xml: boolean): AsyncGenerator<string> {
  let decoder: TextDecoder | null = null;
  const decode = (chunk?: Uint8Array) => {
    try {
      return decoder!.decode(chunk, { stream: chunk !== undefined });
    } catch {
      throw new FeedError(
        `The file is not valid ${decoder!.encoding}; name its encoding (the feed's encoding, or the charset of its Content-Type).`,
      );
    }
  };
  for await (const chunk of bytes) {
    decoder ??= decoderFor(charset ?? sniffEncoding(chunk, xml) ?? "utf-8");
    const text = decode(chunk);
    if (text) yield text;
  }
  if (decoder) {
    const tail = decode();
    if (tail) yield tail;
  }
}

// ---- CSV -------------------------------------------------------------------

/** The separator that occurs most in the header line outside quotes; a one-column file has none. */
export function sniffDelimiter(headerLine: string): string {
  const counts = new Map<string, number>(CSV_DELIMITERS.map((d) => [d, 0]));
  let quoted = false;
  for (const ch of headerLine) {
    if (ch === '"') quoted = !quoted;
    else if (!quoted && counts.has(ch)) counts.set(ch, counts.get(ch)! + 1);
  }
  let best = ",";
  for (const [d, n] of counts) if (n > counts.get(best)!) best = d;
  return best;
}

type CsvInfo = { empty_lines: number };

function lineBreaksIn(record: string[]): number {
  let breaks = 0;
  for (const value of record) {
    if (value.includes("\n") || value.includes("\r")) breaks += value.match(/\r\n|\r|\n/g)!.length;
  }
  return breaks;
}

function columnIndexes(header: string[], opts: ReadOptions, report: ColumnReport) {
  const { mapping } = opts;
  const indexes: Partial<Record<ProductField, number>> = {};
  const missing: string[] = [];
  for (const field of PRODUCT_FIELDS) {
    const name = mapping[field] ?? field;
    let index = header.indexOf(name);
    if (index < 0) index = header.findIndex((h) => h.toLowerCase() === name.toLowerCase());
    if (index >= 0) {
      indexes[field] = index;
      report.found.add(field);
      report.headerNames[field] = header[index];
    }
    // A column the feed names explicitly (or sku/name, which every product needs) must be
    // there: a supplier renaming "Price" must fail loudly, not blank every price.
    else if (mapping[field] !== undefined || field === "sku" || field === "name") missing.push(`'${name}' (${field})`);
  }
  const read = new Set(Object.values(indexes));
  header.forEach((h, i) => report.note(h, read.has(i)));
  report.examined = 1;
  if (report.onlySku) throw new FeedError(onlySkuMessage("csv", mapping, report));
  if (missing.length > 0) {
    const found = header.slice(0, 30).map((h) => `'${h}'`).join(", ");
    throw new FeedError(`The CSV header has no column ${missing.join(", ")}. Columns found: ${found}.`);
  }
  return indexes;
}

async function* csvRecords(text: AsyncGenerator<string>, opts: ReadOptions, report: ColumnReport): AsyncGenerator<FeedRecord[]> {
  // Read up to the end of the header line first: the separator is detected from it.
  const pending: string[] = [];
  let head = "";
  while (!head.includes("\n") && head.length < 65536) {
    const next = await text.next();
    if (next.done) break;
    pending.push(next.value);
    head += next.value;
  }
  const delimiter = opts.csvDelimiter ?? sniffDelimiter(head.split("\n", 1)[0]);
  const input = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const chunk = pending.shift() ?? (await text.next()).value;
      if (chunk === undefined) controller.close();
      else controller.enqueue(Buffer.from(chunk, "utf8"));
    },
    // Stopping early (a bad header, a parse error) stops reading the body too.
    async cancel() {
      await text.return(undefined);
    },
  });
  const parser = csvParse({
    delimiter,
    info: true,
    // Rows with a wrong field count are rejected one by one below, not the whole file.
    relax_column_count: true,
    // A stray quote inside an unquoted field (12" pizza tray) is data, not an error.
    relax_quotes: true,
    skip_empty_lines: true,
    // An unclosed quote would otherwise swallow the rest of the file into one field.
    max_record_size: 1_000_000,
  });
  const reader = (input.pipeThrough(parser) as ReadableStream<{ record: string[]; info: CsvInfo }>).getReader();

  try {
    yield* csvRows(reader, opts, report);
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

async function* csvRows(
  reader: ReadableStreamDefaultReader<{ record: string[]; info: CsvInfo }>,
  opts: ReadOptions,
  report: ColumnReport,
): AsyncGenerator<FeedRecord[]> {
  let header: string[] | null = null;
  let indexes: Partial<Record<ProductField, number>> = {};
  let nextLine = 1;
  let previousEmpty = 0;
  let batch: FeedRecord[] = [];
  for (;;) {
    let next: ReadableStreamReadResult<{ record: string[]; info: CsvInfo }>;
    try {
      next = await reader.read();
    } catch (error) {
      // The rows read so far still count in the import record.
      if (batch.length > 0) yield batch;
      if (error instanceof FeedError) throw error;
      throw new FeedError(`The CSV file could not be parsed: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (next.done) break;
    const { record, info } = next.value;
    // A record starts after the previous one and the empty lines skipped since. (csv-parse's own
    // info.lines counts a quoted CRLF twice, so the lines a record spans are counted here.)
    const line = nextLine + (info.empty_lines - previousEmpty);
    previousEmpty = info.empty_lines;
    nextLine = line + 1 + lineBreaksIn(record);
    if (record.every((v) => v.trim() === "")) continue; // ";;;;" rows that spreadsheets leave behind
    if (!header) {
      header = record.map((h) => h.trim());
      indexes = columnIndexes(header, opts, report);
      continue;
    }
    const cell = (field: ProductField) => (indexes[field] === undefined ? undefined : record[indexes[field]!]);
    if (record.length !== header.length) {
      batch.push({
        line,
        sku: cell("sku")?.trim() || null,
        error: `The row has ${record.length} fields where the header has ${header.length}; check its quoting and separators.`,
      });
    } else {
      const fields: RawFields = {};
      for (const field of PRODUCT_FIELDS) fields[field] = cell(field);
      batch.push({ line, fields });
    }
    if (batch.length >= BATCH) {
      yield batch;
      batch = [];
    }
  }
  if (batch.length > 0) yield batch;
}

// ---- JSON ------------------------------------------------------------------

function lookup(record: Record<string, unknown>, name: string): unknown {
  if (Object.hasOwn(record, name)) return record[name];
  // "stock.quantity" reaches into nested objects.
  let current: unknown = record;
  for (const key of name.split(".")) {
    if (current === null || typeof current !== "object" || Array.isArray(current)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

/** The record's keys no product field reads: a key on the way to a read dotted path is followed into its object. */
function noteJsonNames(record: Record<string, unknown>, read: Set<string>, onTheWay: Set<string>, report: ColumnReport, prefix = "") {
  for (const key of Object.keys(record)) {
    const path = prefix ? `${prefix}.${key}` : key;
    const value = record[key];
    if (read.has(path)) report.note(path, true);
    else if (onTheWay.has(path) && value !== null && typeof value === "object" && !Array.isArray(value)) {
      noteJsonNames(value as Record<string, unknown>, read, onTheWay, report, path);
    } else report.note(path, false);
  }
}

/** Every dotted prefix of the names read ("price" of "price.net"). */
function prefixesOf(names: string[], separator: string): Set<string> {
  const out = new Set<string>();
  for (const name of names) {
    const parts = name.split(separator);
    for (let i = 1; i < parts.length; i++) out.add(parts.slice(0, i).join(separator));
  }
  return out;
}

async function* jsonRecords(text: AsyncGenerator<string>, opts: ReadOptions, report: ColumnReport): AsyncGenerator<FeedRecord[]> {
  const names = readNames(opts.mapping);
  const read = new Set(names);
  const onTheWay = prefixesOf(names, ".");
  const parser = new JSONParser({ paths: [opts.recordPath ? `$.${opts.recordPath}.*` : "$.*"], keepStack: false });
  let batch: FeedRecord[] = [];
  let notAnArray = false;
  parser.onValue = ({ value, key }) => {
    // Array elements come with their index; anything else means the path points at an object.
    if (typeof key !== "number") {
      notAnArray = true;
      return;
    }
    const line = key + 1;
    if (value === null || typeof value !== "object" || Array.isArray(value)) {
      batch.push({ line, sku: null, error: "The record is not an object." });
      return;
    }
    const record = value as Record<string, unknown>;
    const fields: RawFields = {};
    for (const field of PRODUCT_FIELDS) {
      fields[field] = lookup(record, opts.mapping[field] ?? field);
      if (fields[field] !== undefined) report.found.add(field);
    }
    report.examined++;
    if (!report.full) noteJsonNames(record, read, onTheWay, report);
    batch.push({ line, fields });
  };
  const failed = (error: unknown) =>
    new FeedError(`The JSON file could not be parsed: ${error instanceof Error ? error.message : String(error)}`);
  for await (const chunk of text) {
    try {
      parser.write(chunk);
    } catch (error) {
      if (batch.length > 0) yield batch;
      throw failed(error);
    }
    if (notAnArray) {
      throw new FeedError(
        opts.recordPath
          ? `The JSON value at '${opts.recordPath}' is not an array of products.`
          : "The JSON file is not an array of products; set the feed's record_path to the property that holds them (for example \"products\").",
      );
    }
    if (batch.length > 0) {
      yield batch;
      batch = [];
    }
  }
  try {
    // The parser ends by itself after a complete document; an unfinished one fails here.
    if (!parser.isEnded) parser.end();
  } catch (error) {
    throw failed(error);
  }
  if (batch.length > 0) yield batch;
}

// ---- XML -------------------------------------------------------------------

const localName = (name: string) => name.slice(name.indexOf(":") + 1);

type OpenRecord = { line: number; values: Map<string, string>; path: string[]; texts: string[] };

/**
 * The record's element paths and attributes no product field reads. An element that only holds
 * others (no text of its own) is not a value, nor is one on the way to a read path.
 */
function noteXmlNames(values: Map<string, string>, read: Set<string>, onTheWay: Set<string>, report: ColumnReport) {
  const keys = [...values.keys()];
  for (const key of keys) {
    if (read.has(key)) report.note(key, true);
    else if (onTheWay.has(key)) continue;
    else if (values.get(key)!.trim() === "" && keys.some((k) => k.startsWith(`${key}/`))) continue;
    else report.note(key, false);
  }
}

async function* xmlRecords(text: AsyncGenerator<string>, opts: ReadOptions, report: ColumnReport): AsyncGenerator<FeedRecord[]> {
  const names = readNames(opts.mapping);
  const read = new Set(names);
  const onTheWay = prefixesOf(names, "/");
  const recordTag = opts.recordPath ?? DEFAULT_XML_RECORD;
  const parser = new SaxesParser<{ xmlns: false; position: true }>({ xmlns: false, position: true });
  let batch: FeedRecord[] = [];
  let current: OpenRecord | null = null;

  // Inside a record, every child element's text is kept under its path ("price/purchase"),
  // attributes under "@name" or "child/@name"; the mapping names these keys.
  parser.on("opentag", (tag: SaxesTagPlain) => {
    if (!current) {
      if (tag.name === recordTag || localName(tag.name) === recordTag) {
        current = { line: parser.line, values: new Map(), path: [], texts: [] };
        for (const [k, v] of Object.entries(tag.attributes)) current.values.set(`@${k}`, v);
      }
      return;
    }
    current.path.push(tag.name);
    current.texts.push("");
    const prefix = current.path.join("/");
    for (const [k, v] of Object.entries(tag.attributes)) {
      if (!current.values.has(`${prefix}/@${k}`)) current.values.set(`${prefix}/@${k}`, v);
    }
  });
  const onText = (t: string) => {
    if (current && current.texts.length > 0) current.texts[current.texts.length - 1] += t;
  };
  parser.on("text", onText);
  parser.on("cdata", onText);
  parser.on("closetag", () => {
    if (!current) return;
    if (current.path.length === 0) {
      const values = current.values;
      const fields: RawFields = {};
      for (const field of PRODUCT_FIELDS) {
        fields[field] = values.get(opts.mapping[field] ?? field);
        if (fields[field] !== undefined) report.found.add(field);
      }
      report.examined++;
      if (!report.full) noteXmlNames(values, read, onTheWay, report);
      batch.push({ line: current.line, fields });
      current = null;
      return;
    }
    const key = current.path.join("/");
    const value = current.texts.pop() ?? "";
    // The first of repeated elements counts.
    if (!current.values.has(key)) current.values.set(key, value);
    current.path.pop();
  });

  const failed = (error: unknown) =>
    new FeedError(`The XML file could not be parsed: ${error instanceof Error ? error.message : String(error)}`);
  for await (const chunk of text) {
    try {
      parser.write(chunk);
    } catch (error) {
      if (batch.length > 0) yield batch;
      throw failed(error);
    }
    if (batch.length > 0) {
      yield batch;
      batch = [];
    }
  }
  try {
    parser.close();
  } catch (error) {
    throw failed(error);
  }
  if (batch.length > 0) yield batch;
}
