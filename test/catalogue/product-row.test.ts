// Row validation on its own: GS1 check digits, EAN lengths and leading zeros, lenient numbers.
import { describe, expect, it } from "vitest";
import { hasValidCheckDigit, toProductRow } from "../../src/catalogue/product-row";
import { sniffDelimiter } from "../../src/catalogue/feed-readers";

describe("EANs", () => {
  it.each([
    ["96385074", true], // EAN-8
    ["036000291452", true], // UPC-A
    ["4006381333931", true], // EAN-13
    ["0012345678905", true],
    ["10012345678902", true], // GTIN-14
    ["4006381333932", false],
    ["036000291453", false],
  ])("%s has a valid check digit: %s", (digits, valid) => {
    expect(hasValidCheckDigit(digits)).toBe(valid);
  });

  it.each([
    ["0012345678905", { ean13: "0012345678905" }],
    [" 4006381333931 ", { ean13: "4006381333931" }],
    [12345678905, { ean13: "0012345678905" }],
    ["", { ean13: null }],
    [null, { ean13: null }],
    ["40063813339", "The ean13 field must be 8, 12, 13 or 14 digits."],
    ["4006381333931x", "The ean13 field must be 8, 12, 13 or 14 digits."],
    ["4.00638E+12", "The ean13 field must be 8, 12, 13 or 14 digits."],
    ["4006381333932", "The ean13 field has an invalid check digit."],
    [4.5, "The ean13 field must be a string of digits."],
  ])("ean13 %j -> %j", (ean13, expected) => {
    const result = toProductRow({ sku: "S", name: "N", ean13 });
    if (typeof expected === "string") expect(result).toEqual({ sku: "S", errors: [expected] });
    else expect(result).toEqual({ row: { sku: "S", name: "N", purchasePrice: null, stockQuantity: null, active: 1, ...expected } });
  });
});

describe("numbers and flags", () => {
  it.each([
    [{ purchase_price: "12,50" }, { purchasePrice: 12.5 }],
    [{ purchase_price: "1.234,56" }, { purchasePrice: 1234.56 }],
    [{ purchase_price: "1,234.56" }, { purchasePrice: 1234.56 }],
    [{ purchase_price: 0 }, { purchasePrice: 0 }],
    [{ stock_quantity: "7" }, { stockQuantity: 7 }],
    [{ stock_quantity: "7,0" }, { stockQuantity: 7 }],
    [{ stock_quantity: -3 }, { stockQuantity: -3 }],
    [{ active: "NEE" }, { active: 0 }],
    [{ active: false }, { active: 0 }],
    [{ active: " yes " }, { active: 1 }],
  ])("%j is read as %j", (raw, expected) => {
    expect(toProductRow({ sku: "S", name: "N", ...raw })).toEqual({
      row: { sku: "S", name: "N", ean13: null, purchasePrice: null, stockQuantity: null, active: 1, ...expected },
    });
  });

  it("reports every reason of a row at once", () => {
    expect(toProductRow({ sku: " ", name: "x".repeat(1001), purchase_price: "€ 5", stock_quantity: "7.5", active: "maybe" })).toEqual({
      sku: null,
      errors: [
        "The sku field is required.",
        "The name field must not be greater than 1000 characters.",
        "The purchase_price field must be a number.",
        "The stock_quantity field must be an integer.",
        "The active field must be true or false.",
      ],
    });
  });
});

describe("CSV separators", () => {
  it.each([
    ["sku;name;price", ";"],
    ["sku,name,price", ","],
    ["sku\tname\tprice", "\t"],
    ["sku|name|price", "|"],
    ['"sku;x",name,price', ","],
    ["sku", ","],
  ])("%j is separated by %j", (header, delimiter) => {
    expect(sniffDelimiter(header)).toBe(delimiter);
  });
});
