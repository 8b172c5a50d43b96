// The streaming multipart reader: fields before the file, the file's bytes exactly (boundaries split
// across chunks, CRLFs inside the file), no file, and forms it refuses.
import { describe, expect, it } from "vitest";
import { boundaryOf, readMultipart } from "../../src/lib/multipart";

function streamOf(text: string | Uint8Array, chunk: number) {
  const bytes = typeof text === "string" ? new TextEncoder().encode(text) : text;
  let at = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at + chunk));
      at += chunk;
    },
  });
}

async function formOf(parts: (string | Blob)[][], chunk: number) {
  const fd = new FormData();
  for (const [name, value, filename] of parts) {
    if (typeof value === "string") fd.append(name as string, value);
    else fd.append(name as string, value, filename as string);
  }
  const req = new Request("http://x/", { method: "POST", body: fd });
  const bytes = new Uint8Array(await req.arrayBuffer());
  return readMultipart(streamOf(bytes, chunk), boundaryOf(req.headers.get("content-type")!)!);
}

describe("readMultipart", () => {
  for (const chunk of [1, 7, 64, 100_000]) {
    it(`reads the fields and streams the file exactly, ${chunk} bytes at a time`, async () => {
      const file = "sku,name\r\nA,One\r\n\r\n--not-the-boundary\r\nB,Two\n";
      const form = await formOf(
        [
          ["_csrf", "token"],
          ["replace", "true"],
          ["file", new Blob([file], { type: "text/csv" }), "stock.csv"],
        ],
        chunk,
      );
      expect(form.fields).toEqual({ _csrf: "token", replace: "true" });
      expect(form.file).toMatchObject({ field: "file", filename: "stock.csv", contentType: "text/csv" });
      expect(await new Response(form.file!.body).text()).toBe(file);
    });
  }

  it("answers the fields of a form without a file, and refuses a truncated one", async () => {
    expect(await formOf([["a", "1"], ["b", "2"]], 5)).toEqual({ fields: { a: "1", b: "2" }, file: null });
    const truncated = readMultipart(streamOf('--xyz\r\nContent-Disposition: form-data; name="a"\r\n\r\nvalue', 4), "xyz");
    await expect(truncated).rejects.toThrow("The form ended early.");
    expect(boundaryOf("multipart/form-data; boundary=----WebKitFormBoundaryABC")).toBe("----WebKitFormBoundaryABC");
    expect(boundaryOf("application/json")).toBeNull();
  });
});
