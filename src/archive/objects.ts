// The archive's objects in R2: one gzip NDJSON object per account, day of creation and part, one
// order a line (docs/archive.md, "Objects"). An object is written once and never changed; its name
// comes from the ids of the orders it holds, so writing the same orders again (the next run after a
// crash) writes the same object, and a different set of orders never overwrites it.

/** An object holds at most this many orders ... */
export const OBJECT_MAX_ORDERS = 500;
/** ... and at most this many bytes before compression: one read decompresses at most this. */
export const OBJECT_MAX_BYTES = 4 * 1024 * 1024;

/** Every object of an account starts with this (deleting an account deletes them all). */
export const accountPrefix = (accountId: number) => `orders/${accountId}/`;

/** The object's key: the account, the day its orders were created (UTC) and the part's name. */
export const objectKey = (accountId: number, createdAt: string, part: string) => `${accountPrefix(accountId)}${createdAt.slice(0, 10)}/${part}.ndjson.gz`;

/** A part's name: its first order's id and a digest of all its orders' ids. */
export async function partName(orderIds: number[]): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(orderIds.join(",")));
  const hex = [...new Uint8Array(digest).slice(0, 8)].map((b) => b.toString(16).padStart(2, "0")).join("");
  return `${orderIds[0]}-${hex}`;
}

/** Documents cut into parts within both bounds, in the order given. */
export function intoParts<T>(docs: { doc: T; text: string }[]): { doc: T; text: string }[][] {
  const parts: { doc: T; text: string }[][] = [];
  let bytes = 0;
  for (const d of docs) {
    const size = new TextEncoder().encode(d.text).length + 1;
    const last = parts[parts.length - 1];
    if (!last || last.length >= OBJECT_MAX_ORDERS || bytes + size > OBJECT_MAX_BYTES) {
      parts.push([d]);
      bytes = size;
    } else {
      last.push(d);
      bytes += size;
    }
  }
  return parts;
}

async function gzip(text: string): Promise<ArrayBuffer> {
  return new Response(new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"))).arrayBuffer();
}

async function gunzip(body: ReadableStream<Uint8Array>): Promise<string> {
  return new Response(body.pipeThrough(new DecompressionStream("gzip"))).text();
}

/**
 * Writes the lines as one object and reads it back: it answers only once R2 gives back exactly the
 * text written (the rows are deleted after this). The compressed size in bytes.
 */
export async function writeObject(bucket: R2Bucket, key: string, lines: string[]): Promise<number> {
  const text = lines.join("\n") + "\n";
  const body = await gzip(text);
  await bucket.put(key, body, { httpMetadata: { contentType: "application/x-ndjson", contentEncoding: "gzip" }, customMetadata: { orders: String(lines.length) } });
  const back = await bucket.get(key);
  if (!back) throw new Error(`archive: ${key} was written but cannot be read back`);
  const read = await gunzip(back.body);
  if (read !== text) throw new Error(`archive: ${key} reads back differently from what was written`);
  return body.byteLength;
}

/** Lines (0-based) of an object, as written; those missing are left out. */
export async function readLines(bucket: R2Bucket, key: string, lines: number[]): Promise<Map<number, string>> {
  const found = new Map<number, string>();
  const object = await bucket.get(key);
  if (!object) return found;
  const all = (await gunzip(object.body)).split("\n");
  for (const line of lines) if (line < all.length - 1) found.set(line, all[line]);
  return found;
}

/** One line (0-based) of an object, as written; null when the object or the line is missing. */
export async function readLine(bucket: R2Bucket, key: string, line: number): Promise<string | null> {
  return (await readLines(bucket, key, [line])).get(line) ?? null;
}

/**
 * Deletes every object under the prefix, a listing page (up to 1,000 keys) at a time, at most
 * `pages` pages (a bounded call: an account's deletion, src/shards/delete.ts). The count.
 */
export async function deletePrefix(bucket: R2Bucket, prefix: string, pages = Number.POSITIVE_INFINITY): Promise<number> {
  let deleted = 0;
  let cursor: string | undefined;
  for (let page_ = 1; ; page_++) {
    const page = await bucket.list({ prefix, cursor, limit: 1000 });
    if (page.objects.length > 0) await bucket.delete(page.objects.map((o) => o.key));
    deleted += page.objects.length;
    if (!page.truncated || page_ >= pages) return deleted;
    cursor = page.cursor;
  }
}
