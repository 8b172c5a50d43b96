// What a supplier's answers may carry, through the supplier API and the signed callback alike: a
// tracking_url only as an http(s) URL of at most 2048 characters, and every failing field named at
// once, the schema's and the lines' (a quantity past what is left) in one 422; nothing written.
import { describe, expect, it } from "vitest";
import { createAccount, createOrder, orderPayload } from "../helpers/factories";
import { call } from "../helpers/http";
import { answer, awaitingPickup, signedHeader, supplierWithRule } from "../helpers/suppliers";

async function pulledOrder() {
  const creds = await createAccount();
  const { supplier } = await supplierWithRule(creds, { channel: "pull" });
  const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key as string;
  const products = [
    { external_id: "a", name: "A", quantity: 2, price: 1 },
    { external_id: "b", name: "B", quantity: 1, price: 1 },
    { external_id: "c", name: "C", quantity: 5, price: 1 },
  ];
  const { reference } = await createOrder(creds, orderPayload({ products }));
  const doc = await awaitingPickup(key, reference);
  const lines = async () => (await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines;
  return { creds, supplier, key, lineIds: doc.lines.map((l: { id: number }) => l.id) as number[], lines };
}

/** The same answers through both doors: the supplier API (key) and the signed callback. */
async function bothWays(supplier: { id: number; webhook_secret: string }, key: string, answers: Record<string, unknown>[]) {
  const body = JSON.stringify({ answers });
  const signed = await call("POST", `/api/v1/supplier-callbacks/${supplier.id}`, {
    rawBody: body,
    headers: { "content-type": "application/json", "x-webhook-signature": await signedHeader(supplier.webhook_secret, body) },
  });
  return [await answer(key, answers), signed];
}

const URL_ERROR = (i: number) => ({ [`answers.${i}.tracking_url`]: [`The answers.${i}.tracking_url field must be a valid http(s) URL.`] });

describe("tracking_url", () => {
  it("takes an http(s) URL of up to 2048 characters, kept as sent; one past it, or anything else (javascript:, data:, no host, a user before the host, blanks), is a 422", async () => {
    const { supplier, key, lineIds: [a, b], lines } = await pulledOrder();
    const before = await lines();
    const base = "https://track.example/";
    const atMax = base + "x".repeat(2048 - base.length);
    for (const url of [
      "javascript:alert(1)",
      "JavaScript:alert(document.cookie)//https://x.example",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:msgbox(1)",
      "ftp://files.example/track",
      "https:track.example/1",
      "https:/track.example/1",
      "https:///track",
      "//track.example/1",
      "track.example/1",
      "https://postnl.nl@evil.example/track",
      "https://track.example/a b",
      "https://track.example/\tT1",
      // At its length, a URL that is no http(s) one is refused all the same.
      "javascript:alert(1)//" + "x".repeat(2048 - 21),
    ]) {
      for (const res of await bothWays(supplier, key, [{ line_id: a, action: "ship", tracking_number: "T1", tracking_url: url }])) {
        expect([url, res.status, res.json]).toEqual([url, 422, { message: "Errors", errors: URL_ERROR(0) }]);
      }
    }
    for (const res of await bothWays(supplier, key, [{ line_id: a, action: "ship", quantity: 1, tracking_number: "T1", tracking_url: atMax + "x" }])) {
      expect(res.json).toEqual({ message: "Errors", errors: { "answers.0.tracking_url": ["The answers.0.tracking_url field must not be greater than 2048 characters."] } });
    }
    expect(await lines()).toEqual(before);

    const [viaKey, viaCallback] = await bothWays(supplier, key, [{ line_id: a, action: "ship", quantity: 1, tracking_number: "T1", tracking_url: atMax }]);
    expect([viaKey.status, viaCallback.status]).toEqual([200, 200]);
    // Both answers named the same shipment (T1): recorded once, the URL kept to the character.
    expect((await lines())[0].shipments).toEqual([
      { id: expect.any(Number), quantity: 1, carrier: null, tracking_number: "T1", tracking_url: atMax, created_at: expect.any(String) },
    ]);
    // http is taken too.
    expect((await answer(key, [{ line_id: b, action: "ship", tracking_url: "http://track.example/T2?id=2#x" }])).status).toBe(200);
  });
});

describe("every failing field at once", () => {
  it("names the schema's and the lines' failures in one 422, through the API and the signed callback, and writes nothing", async () => {
    const { supplier, key, lineIds: [a, b, c], lines } = await pulledOrder();
    const before = await lines();
    const answers = [
      { line_id: a, action: "ship", quantity: 9, carrier: "x".repeat(256), tracking_url: "javascript:alert(1)" },
      { line_id: b, action: "decline" },
      { line_id: c, action: "partial", quantity: 5, reason: "r".repeat(1001) },
    ];
    for (const res of await bothWays(supplier, key, answers)) {
      expect(res.status).toBe(422);
      expect(res.json).toEqual({
        message: "Errors",
        errors: {
          "answers.0.quantity": [`The answers.0.quantity field must not be greater than 2, what is left to ship of line ${a} (0 of 2 shipped).`],
          "answers.0.carrier": ["The answers.0.carrier field must not be greater than 255 characters."],
          ...URL_ERROR(0),
          "answers.1.reason": ["The answers.1.reason field is required when action is decline."],
          "answers.2.quantity": ["The answers.2.quantity field must be less than the line's quantity (5)."],
          "answers.2.reason": ["The answers.2.reason field must not be greater than 1000 characters."],
        },
      });
    }
    expect(await lines()).toEqual(before);
  });
});

describe("identifiers in a shipment", () => {
  it("refuses a control character in carrier, tracking_number or shipment_id, every field named at once, and writes nothing", async () => {
    const { supplier, key, lineIds: [a], lines } = await pulledOrder();
    const before = await lines();
    const answers = [{ line_id: a, action: "ship", quantity: 1, carrier: "Post\u0000NL", tracking_number: "3S\nT1", shipment_id: "S\u001b1" }];
    for (const res of await bothWays(supplier, key, answers)) {
      expect([res.status, res.json]).toEqual([
        422,
        {
          message: "Errors",
          errors: {
            "answers.0.carrier": ["The answers.0.carrier field must not contain control characters (it holds U+0000)."],
            "answers.0.tracking_number": ["The answers.0.tracking_number field must not contain control characters (it holds U+000A)."],
            "answers.0.shipment_id": ["The answers.0.shipment_id field must not contain control characters (it holds U+001B)."],
          },
        },
      ]);
    }
    expect(await lines()).toEqual(before);
  });
});
