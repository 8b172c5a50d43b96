// A multipart/form-data body read as it streams in: the fields before the first file, then that
// file's content as a stream of its own (never held whole in memory), so a browser's upload goes
// into the same streaming import as the API's raw PUT. Forms put their fields first (browsers send
// parts in the form's order); whatever follows the file is not read.
const enc = new TextEncoder();
const dec = new TextDecoder();

export type MultipartFile = { field: string; filename: string; contentType: string; body: ReadableStream<Uint8Array> };
export type MultipartForm = { fields: Record<string, string>; file: MultipartFile | null };

export class MultipartError extends Error {}

const MAX_HEADER_BYTES = 8 * 1024;
const MAX_FIELD_BYTES = 64 * 1024;
const MAX_FIELDS = 50;

export function boundaryOf(contentType: string | undefined): string | null {
  const m = /^multipart\/form-data\s*;.*\bboundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType ?? "");
  return m ? (m[1] ?? m[2]) : null;
}

/** A part's headers (RFC 7578): its field name, its filename (a file part has one) and its Content-Type, as written. */
export function partHeaders(head: string): { name?: string; filename?: string; contentType?: string } {
  const disposition = /^content-disposition:\s*form-data(.*)$/im.exec(head)?.[1] ?? "";
  return {
    name: /;\s*name="([^"]*)"/i.exec(disposition)?.[1],
    filename: /;\s*filename="([^"]*)"/i.exec(disposition)?.[1],
    contentType: /^content-type:\s*([^\r\n]*)$/im.exec(head)?.[1]?.trim() || undefined,
  };
}

function indexOf(haystack: Uint8Array, needle: Uint8Array, from = 0): number {
  outer: for (let i = from; i <= haystack.length - needle.length; i++) {
    for (let j = 0; j < needle.length; j++) if (haystack[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

const concat = (a: Uint8Array, b: Uint8Array) => {
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
};

export async function readMultipart(body: ReadableStream<Uint8Array> | null, boundary: string): Promise<MultipartForm> {
  if (!body) throw new MultipartError("The form is empty.");
  const reader = body.getReader();
  let buf: Uint8Array = new Uint8Array(0);
  let ended = false;
  const more = async () => {
    if (ended) return false;
    const { done, value } = await reader.read();
    if (done) {
      ended = true;
      return false;
    }
    buf = concat(buf, value);
    return true;
  };
  /** Bytes up to `needle` (which is consumed too), reading no more than `limit` before it. */
  const until = async (needle: Uint8Array, limit: number, what: string) => {
    for (;;) {
      const at = indexOf(buf, needle);
      if (at >= 0) {
        const out = buf.slice(0, at);
        buf = buf.slice(at + needle.length);
        return out;
      }
      if (buf.length > limit + needle.length) throw new MultipartError(`${what} is too large.`);
      if (!(await more())) throw new MultipartError("The form ended early.");
    }
  };
  const delimiter = enc.encode(`\r\n--${boundary}`);
  // The body opens with the first boundary (a preamble before it is allowed and skipped).
  buf = concat(enc.encode("\r\n"), buf);
  await until(delimiter, MAX_FIELD_BYTES, "The form's preamble");
  const fields: Record<string, string> = {};
  for (let count = 0; ; count++) {
    while (buf.length < 2 && (await more()));
    if (buf[0] === 0x2d && buf[1] === 0x2d) return { fields, file: null }; // "--": the closing boundary
    if (count >= MAX_FIELDS) throw new MultipartError("The form has too many fields.");
    await until(enc.encode("\r\n"), 2, "A form boundary");
    const head = dec.decode(await until(enc.encode("\r\n\r\n"), MAX_HEADER_BYTES, "A form part's header"));
    const { name, filename, contentType = "application/octet-stream" } = partHeaders(head);
    if (name === undefined) throw new MultipartError("A form part has no name.");
    if (filename === undefined) {
      fields[name] = dec.decode(await until(delimiter, MAX_FIELD_BYTES, `The field ${name}`));
      continue;
    }
    return { fields, file: { field: name, filename, contentType, body: fileStream() } };
  }

  /** The file's bytes up to the next boundary; a tail as long as the boundary is held back in case it is split across chunks. */
  function fileStream(): ReadableStream<Uint8Array> {
    return new ReadableStream<Uint8Array>({
      async pull(controller) {
        for (;;) {
          const at = indexOf(buf, delimiter);
          if (at >= 0) {
            if (at > 0) controller.enqueue(buf.slice(0, at));
            buf = new Uint8Array(0);
            controller.close();
            await reader.cancel().catch(() => undefined);
            return;
          }
          const safe = buf.length - (delimiter.length - 1);
          if (safe > 0) {
            controller.enqueue(buf.slice(0, safe));
            buf = buf.slice(safe);
            return;
          }
          if (!(await more())) {
            controller.error(new MultipartError("The upload ended before the file did."));
            return;
          }
        }
      },
      async cancel() {
        await reader.cancel().catch(() => undefined);
      },
    });
  }
}
