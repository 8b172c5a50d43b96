// A feed file at its size limit (100 MiB, MAX_FEED_BYTES) is imported; one byte more fails the
// import whole, changing no product. The files stream in: a few products padded with JSON
// whitespace to the exact size.
import { describe, expect, it } from "vitest";
import { MAX_FEED_BYTES } from "../../src/catalogue/imports.service";
import { createFeed, feedCatalogue, pushFile } from "../helpers/catalogue";
import { createAccount } from "../helpers/factories";

/** `[<products>` + spaces + `]`, exactly `size` bytes, streamed in 1 MiB chunks. */
function paddedJson(products: unknown[], size: number): ReadableStream<Uint8Array> {
  const head = new TextEncoder().encode(JSON.stringify(products).slice(0, -1));
  const tail = new TextEncoder().encode("]");
  let left = size - head.length - tail.length;
  const spaces = new Uint8Array(1024 * 1024).fill(0x20);
  let sentHead = false;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (!sentHead) {
        sentHead = true;
        controller.enqueue(head);
      } else if (left > 0) {
        const n = Math.min(left, spaces.length);
        controller.enqueue(n === spaces.length ? spaces : spaces.slice(0, n));
        left -= n;
      } else {
        controller.enqueue(tail);
        controller.close();
      }
    },
  });
}

describe("the feed file size limit", () => {
  it(`imports a file of exactly ${MAX_FEED_BYTES / 1048576} MiB, and fails one byte more, changing nothing`, async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { format: "json" });
    const products = [{ sku: "A", name: "Alpha", purchase_price: "1.50" }, { sku: "B", name: "Beta" }];

    const past = await pushFile(creds, feed.id, paddedJson([{ sku: "X", name: "Too big" }], MAX_FEED_BYTES + 1), "application/json");
    expect(past.status).toBe(422);
    expect(past.json.errors).toEqual({ body: ["The file is larger than 100 MiB."] });
    expect(past.json.import).toMatchObject({ status: "failed", created: 0 });
    expect(await feedCatalogue(creds, feed.id)).toEqual({});

    const atMax = await pushFile(creds, feed.id, paddedJson(products, MAX_FEED_BYTES), "application/json");
    expect(atMax.status, atMax.text).toBe(200);
    expect(atMax.json).toMatchObject({ status: "succeeded", rows_read: 2, created: 2 });
    expect(Object.keys(await feedCatalogue(creds, feed.id))).toEqual(["A", "B"]);
  }, 60_000);
});
