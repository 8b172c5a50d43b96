// Names of a file's columns, keys or elements that are very long: an import keeps each as its first
// 100 characters and "…" (at 100 whole, at 101 cut), so 20 of them never make a record of megabytes.
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { createFeed, pushFile } from "../helpers/catalogue";

describe("a file's very long names", () => {
  it("are kept as their first 100 characters and '…' in unmapped_columns, the warning and the refusal", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { format: "json" });
    const atMax = "a".repeat(100);
    const onePast = "b".repeat(101);
    // 18 more keys of 200,000 characters: on main the import answered 8 MB, every name twice in full.
    const huge = Array.from({ length: 18 }, (_, i) => `${String.fromCharCode(99 + i)}`.repeat(200_000));
    const record: Record<string, unknown> = { sku: "A-1", name: "Mug", [atMax]: 1, [onePast]: 2 };
    for (const key of huge) record[key] = 3;
    const res = await pushFile(creds, feed.id, JSON.stringify([record]), "application/json");
    expect(res.status).toBe(200);
    const kept = [atMax, `${"b".repeat(100)}…`, ...huge.map((k) => `${k.slice(0, 100)}…`)];
    expect(res.json.unmapped_columns).toEqual(kept);
    expect(res.json.warnings).toEqual([
      `Not imported: the file's fields ${kept.map((n) => `'${n}'`).join(", ")} map to no product field. ` +
        "Product fields the file left empty: ean13, purchase_price, stock_quantity, active; name their fields in the feed's mapping.",
    ]);
    expect(res.text.length).toBeLessThan(10_000);

    // A CSV file whose only product field is its SKU: the refusal names the columns found, each kept so.
    const { feed: csv } = await createFeed(creds);
    const refused = await pushFile(creds, csv.id, `sku;${onePast}\nA-1;x\n`, "text/csv");
    expect(refused.status).toBe(422);
    expect(refused.json.errors.body[0]).toMatch(new RegExp(`Columns found: 'sku', '${"b".repeat(100)}…'\\.$`));
    expect(refused.json.import.unmapped_columns).toEqual([`${"b".repeat(100)}…`]);
  });
});
