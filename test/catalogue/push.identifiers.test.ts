// A feed's SKUs are identifiers like an order's: a control character rejects the row, named.
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { createFeed, feedCatalogue, pushJson } from "../helpers/catalogue";

describe("SKUs with control characters", () => {
  it("rejects the row with its reason, and imports the others", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds);
    const res = await pushJson(creds, feed.id, [
      { sku: "K-1", name: "Kettle" },
      { sku: "K-\u00002", name: "Kettle lid" },
      { sku: "K\u001b3", name: "Kettle base" },
    ]);
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({
      rows_read: 3,
      created: 1,
      rejected: 2,
      rejections: [
        { line: 2, sku: null, reason: "The field 'sku' must not contain control characters (it holds U+0000)." },
        { line: 3, sku: null, reason: "The field 'sku' must not contain control characters (it holds U+001B)." },
      ],
    });
    expect(Object.keys(await feedCatalogue(creds, feed.id))).toEqual(["K-1"]);
  });
});
