// The console's feed preview over HTTP inside workerd: a sample that no reader can read is told on
// the page (200, the reason an import would fail), and a form larger than the console takes is the
// console's own 413 (a page, or in place of the preview for htmx), never a 500 or the API's JSON.
import { describe, expect, it } from "vitest";
import { MAX_BODY_BYTES } from "../../src/lib/errors";
import { createAccount } from "../helpers/factories";
import { BASE } from "../helpers/http";
import { send, signIn } from "../helpers/console-http";

const TOO_LARGE = "What the form sent is larger than 1 MiB, more than the console takes: nothing was saved.";

async function newFeedForm() {
  const creds = await createAccount();
  const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
  const page = await send("/console/catalogue/feeds/new", { jar });
  const token = /name="_csrf" value="([0-9a-f]{64})"/.exec(await page.text())![1];
  /** Posts the form's "Preview the sample" (as htmx asks for the preview, or as a plain form without JavaScript). */
  const preview = async (body: string | ReadableStream, htmx: boolean) => {
    const res = await send("/console/catalogue/feeds/new", {
      method: "POST",
      jar,
      body: typeof body === "string" ? `_csrf=${token}&intent=preview&${body}` : body,
      headers: { origin: BASE, "content-type": "application/x-www-form-urlencoded", ...(htmx ? { "hx-request": "true", "hx-target": "#feed-preview" } : {}) },
    });
    return { status: res.status, type: res.headers.get("content-type"), html: await res.text(), prefix: `_csrf=${token}&intent=preview&` };
  };
  return { preview };
}

const fields = (f: Record<string, string>) => new URLSearchParams(f).toString();
const callout = (html: string) => /<p class="callout"[^>]*>([\s\S]*?)<\/p>/.exec(html)?.[1].replace(/<[^>]+>/g, "");

describe("the feed preview of a sample no reader can read", () => {
  it("says why an import would fail, as a 200 with the form, for each format and a line past the CSV reader's longest", async () => {
    const { preview } = await newFeedForm();
    const cases: [Record<string, string>, string][] = [
      [{ format: "csv", sample: 'sku,name\n"A1,Lamp\n' }, "An import would fail: The CSV file could not be parsed: Quote Not Closed: the parsing is finished with an opening quote at line 2"],
      [{ format: "json", sample: '[{"sku": "A1",' }, "An import would fail: The JSON file could not be parsed: "],
      [{ format: "xml", record_path: "product", sample: "<products><product><sku>A1</sku>" }, "An import would fail: The XML file could not be parsed: 1:32: unclosed tag: product"],
      [{ format: "csv", sample: "x".repeat(1_048_000) }, "An import would fail: The CSV file could not be parsed: Max Record Size: record exceed the maximum number of tolerated bytes of 1000000 at line 1"],
    ];
    for (const [sent, said] of cases) {
      for (const htmx of [true, false]) {
        const res = await preview(fields(sent), htmx);
        expect(res.status, `${sent.format} ${htmx}`).toBe(200);
        expect(callout(res.html)?.startsWith(said), `${sent.format} ${htmx}: ${callout(res.html)}`).toBe(true);
      }
    }
  });
});

describe("a preview's form at the console's body limit", () => {
  it("is read at exactly 1 MiB; a byte more is the console's 413, a page or the preview's place, with nothing saved", async () => {
    const { preview } = await newFeedForm();
    const prefix = (await preview("", false)).prefix;
    // format=csv and a sample of a header and rows of a SKU and a name each, padded to the byte.
    const head = `format=csv&sample=sku%2Cname`;
    const rows = "%0AB1%2Cn".repeat(Math.floor((MAX_BODY_BYTES - prefix.length - head.length) / 9));
    const atMax = head + rows + "B".repeat(MAX_BODY_BYTES - prefix.length - head.length - rows.length);
    expect(prefix.length + atMax.length).toBe(MAX_BODY_BYTES);

    for (const htmx of [true, false]) {
      const read = await preview(atMax, htmx);
      expect(read.status).toBe(200);
      expect(read.html).toContain(`<caption class="visually-hidden">The first 10 rows, as an import would read them</caption>`);

      const over = await preview(atMax + "B", htmx);
      expect([over.status, over.type]).toEqual([413, "text/html; charset=UTF-8"]);
      if (htmx) {
        expect(over.html).toBe(`<div id="feed-preview"><p class="callout" role="alert"><strong>Too large:</strong> ${TOO_LARGE}</p></div>`);
      } else {
        expect(over.html).toContain("<h1>Too large</h1><p>Error 413</p></hgroup><p>" + TOO_LARGE + "</p>");
        expect(over.html).toContain(`<nav class="container" aria-label="Main">`);
      }
    }
    // Streamed, without a Content-Length: the same page, the body read no further than the limit.
    const bytes = new TextEncoder().encode(prefix + atMax + "B");
    const streamed = await preview(new Response(bytes).body!, false);
    expect([streamed.status, streamed.type]).toEqual([413, "text/html; charset=UTF-8"]);
    expect(streamed.html).toContain("<h1>Too large</h1><p>Error 413</p></hgroup><p>" + TOO_LARGE + "</p>");
  });
});
