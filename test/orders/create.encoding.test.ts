// A client's bytes, read as the charset it declares or refused: never a U+FFFD it did not send, never
// two orders merged because their bytes were rewritten. Bodies are built byte for byte.
import { describe, expect, it } from "vitest";
import { createAccount, orderPayload, rows, unique } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { httpBuildQuery, phpFields } from "../helpers/php-form";

const utf8 = (s: string) => new TextEncoder().encode(s);

/** `text` (UTF-8) with each `@@` replaced by the next run of raw bytes. */
function bytesOf(text: string, ...raw: number[][]): Uint8Array {
  const parts = text.split("@@");
  expect(parts.length - 1).toBe(raw.length);
  const out: number[] = [];
  parts.forEach((part, i) => {
    out.push(...utf8(part));
    if (i < raw.length) out.push(...raw[i]);
  });
  return new Uint8Array(out);
}

const post = (creds: Credentials, body: Uint8Array | string, type: string) =>
  call("POST", "/api/v1/orders", { creds, rawBody: body, headers: { "content-type": type } });

const ordersOf = (creds: Credentials) => rows("SELECT id FROM orders WHERE account_id = ?", creds.accountId);

const notValid = (charset: string, byte: number, offset: number) => ({
  message: "Bad Request",
  error:
    `The body is not valid ${charset} (byte 0x${byte.toString(16).toUpperCase()} at offset ${offset}). Send UTF-8, or declare the ` +
    "charset the body is in: iso-8859-1 (latin1), windows-1252 (cp1252) or us-ascii.",
});

describe("JSON bodies: bytes that are not text in their charset", () => {
  it("refuses two orders whose external_ids differ only in bytes that are not UTF-8 (0xFF, 0xFE): both 400, nothing stored", async () => {
    const creds = await createAccount();
    const prefix = unique("U8");
    const first = JSON.stringify(orderPayload({ external_id: `${prefix}@@`, products: [{ ...orderPayload().products[0], quantity: 2 }] }));
    const second = JSON.stringify(orderPayload({ external_id: `${prefix}@@`, products: [{ ...orderPayload().products[0], quantity: 9 }] }));
    const offset = utf8(first.slice(0, first.indexOf("@@"))).length;
    const a = await post(creds, bytesOf(first, [0xff]), "application/json");
    const b = await post(creds, bytesOf(second, [0xfe]), "application/json");
    expect([a.status, a.json]).toEqual([400, notValid("UTF-8", 0xff, offset)]);
    expect([b.status, b.json]).toEqual([400, notValid("UTF-8", 0xfe, offset)]);
    expect(await ordersOf(creds)).toEqual([]);
  });

  it("refuses a truncated character, an overlong form and an encoded surrogate, naming the first bad byte", async () => {
    const creds = await createAccount();
    const json = JSON.stringify(orderPayload({ source: "x@@" }));
    const offset = utf8(json.slice(0, json.indexOf("@@"))).length;
    for (const bad of [[0xc3], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80]]) {
      const res = await post(creds, bytesOf(json, bad), "application/json; charset=utf-8");
      expect([res.status, res.json], JSON.stringify(bad)).toEqual([400, notValid("UTF-8", bad[0], offset)]);
    }
    expect(await ordersOf(creds)).toEqual([]);
  });

  it("reads a body declared iso-8859-1, latin1 or windows-1252 in that charset, and a U+FFFD the client sent as itself", async () => {
    const creds = await createAccount();
    const cases: [string, number[], string][] = [
      ["application/json; charset=iso-8859-1", [0x43, 0x61, 0x66, 0xe9], "Café"],
      ["application/json; charset=ISO-8859-1", [0xfc, 0xdf, 0xa0, 0xff], "üß\u00a0ÿ"],
      ["application/json;charset=latin1", [0x4d, 0xfc, 0x6c, 0x6c, 0x65, 0x72], "Müller"],
      ["application/json; charset=windows-1252", [0x80, 0x20, 0x93, 0x4f, 0x4b, 0x94, 0x20, 0x96], "€ “OK” –"],
      ['application/json; charset="cp1252"', [0x8a, 0x9a, 0x9f], "ŠšŸ"],
      ["application/json; charset=utf-8", [0xef, 0xbf, 0xbd], "\ufffd"],
    ];
    for (const [type, raw, text] of cases) {
      const payload = orderPayload({ products: [{ ...orderPayload().products[0], name: "@@" }] });
      const created = await post(creds, bytesOf(JSON.stringify(payload), raw), type);
      expect([created.status, created.json.message], type).toEqual([200, "Order created"]);
      const shown = await call("GET", `/api/v1/orders/${created.json.reference}`, { creds });
      expect(shown.json.order_lines[0].name, type).toBe(text);
      expect(shown.json.external_id, type).toBe(payload.external_id);
    }
  });

  it("refuses bytes a declared single-byte charset has no character for, and an unknown charset with a 415", async () => {
    const creds = await createAccount();
    const json = JSON.stringify(orderPayload({ source: "x@@" }));
    const offset = json.indexOf("@@");
    for (const [type, charset, byte] of [
      ["application/json; charset=windows-1252", "windows-1252", 0x81],
      ["application/json; charset=cp1252", "windows-1252", 0x9d],
      ["application/json; charset=us-ascii", "US-ASCII", 0xe9],
    ] as const) {
      const res = await post(creds, bytesOf(json, [byte]), type);
      expect([res.status, res.json], type).toEqual([400, notValid(charset, byte, offset)]);
    }
    for (const label of ["shift_jis", "utf-16"]) {
      const res = await post(creds, JSON.stringify(orderPayload()), `application/json; charset=${label}`);
      expect([res.status, res.json], label).toEqual([
        415,
        {
          message: "Unsupported Media Type",
          error: `The charset "${label}" is not supported. Send the body as utf-8 (the default), iso-8859-1 (latin1), windows-1252 (cp1252) or us-ascii.`,
        },
      ]);
    }
    expect(await ordersOf(creds)).toEqual([]);
  });

  it("refuses a lone surrogate escape (\\ud800) with a 422 naming every field that holds one, keys too; a whole pair is a character", async () => {
    const creds = await createAccount();
    const payload = orderPayload({ external_id: unique("S") });
    const json = JSON.stringify(payload)
      .replace(`"external_id":"${payload.external_id}"`, `"external_id":"${payload.external_id}\\ud800"`)
      .replace('"custom":{"color":"blue"}', '"custom":{"color":"\\udc00blue","k\\udbff":1}');
    const res = await post(creds, json, "application/json");
    const half = (escape: string, field: string) =>
      `The ${field} field must be Unicode text: ${escape} is half of a surrogate pair, no character. Send the character itself, or both halves of its pair.`;
    expect([res.status, res.json]).toEqual([
      422,
      {
        message: "Errors",
        errors: {
          external_id: [half("\\ud800", "external_id")],
          "products.0.custom.color": [half("\\udc00", "products.0.custom.color")],
          "products.0.custom.k\\udbff": [half("\\udbff", "products.0.custom.k\\udbff")],
        },
      },
    ]);
    expect(await ordersOf(creds)).toEqual([]);

    const pair = await post(creds, JSON.stringify(orderPayload({ source: "shop" })).replace('"shop"', '"shop \\ud83d\\ude00"'), "application/json");
    expect(pair.status).toBe(200);
    expect((await call("GET", `/api/v1/orders/${pair.json.reference}`, { creds })).json.source).toBe("shop 😀");
  });

  it("names at most the first 100 fields that hold half a surrogate pair: 100 at the maximum, still 100 past it", async () => {
    const creds = await createAccount();
    for (const [sent, named] of [[100, 100], [101, 100]]) {
      const keys = Array.from({ length: sent }, (_, i) => `k${String(i).padStart(3, "0")}`);
      const custom = `{${keys.map((k) => `"${k}":"\\ud800"`).join(",")}}`;
      const res = await post(creds, JSON.stringify(orderPayload()).replace(/}$/, `,"custom":${custom}}`), "application/json");
      expect(res.status).toBe(422);
      expect(Object.keys(res.json.errors)).toEqual(keys.slice(0, named).map((k) => `custom.${k}`));
    }
    expect(await ordersOf(creds)).toEqual([]);
  });

  it("holds the 1 MiB limit for the body's text in UTF-8 too: a body in iso-8859-1 or windows-1252 grows once decoded", async () => {
    const creds = await createAccount();
    const MiB = 1024 * 1024;
    // 500 lines named with `n` accented characters each: one byte each as sent, 2 (é) or 3 (€) in UTF-8.
    const bodyOf = (byte: number, extraInUtf8: number, n: number, total: number) => {
      const base = orderPayload();
      const json = JSON.stringify({ ...base, products: Array.from({ length: 500 }, (_, i) => ({ ...base.products[0], external_id: `p${i}`, name: "@@".repeat(n) })) });
      const ascii = utf8(json.replaceAll("@@", "~"));
      expect(ascii.length + 500 * n * extraInUtf8 <= total).toBe(true);
      const out = new Uint8Array(total - 500 * n * extraInUtf8).fill(0x20);
      out.set(ascii.map((b) => (b === 0x7e ? byte : b)));
      return out;
    };
    const tooLarge = (charset: string, size: number) => ({
      message: "Payload Too Large",
      error: `The request body must not be larger than 1 MiB in UTF-8, as it is kept: this ${charset} body is ${size} bytes in UTF-8.`,
    });
    // At the limit: 1 MiB once in UTF-8 (the body as sent is smaller), and one byte past it.
    const atMax = await post(creds, bodyOf(0xe9, 1, 900, MiB), "application/json; charset=iso-8859-1");
    expect([atMax.status, atMax.json.message]).toEqual([200, "Order created"]);
    expect((await call("GET", `/api/v1/orders/${atMax.json.reference}`, { creds })).json.order_lines[0].name).toBe("é".repeat(900));
    const past = await post(creds, bodyOf(0xe9, 1, 900, MiB + 1), "application/json; charset=iso-8859-1");
    expect([past.status, past.json]).toEqual([413, tooLarge("ISO-8859-1", MiB + 1)]);
    // Exactly 1 MiB as sent, each € three bytes in UTF-8.
    const euros = bodyOf(0x80, 0, 900, MiB);
    expect(euros.length).toBe(MiB);
    const grown = await post(creds, euros, "application/json; charset=windows-1252");
    expect([grown.status, grown.json]).toEqual([413, tooLarge("windows-1252", MiB + 500 * 900 * 2)]);
    // A form alike.
    const form = httpBuildQuery(orderPayload({ products: Array.from({ length: 500 }, (_, i) => ({ ...orderPayload().products[0], external_id: `p${i}`, name: "NAME" })) }));
    const raw = utf8(form.replaceAll("=NAME&", `=${"~".repeat(1000)}&`)).map((b) => (b === 0x7e ? 0x80 : b));
    const formPast = await post(creds, raw, `${URLENCODED}; charset=windows-1252`);
    expect([formPast.status, formPast.json]).toEqual([413, tooLarge("windows-1252", raw.length + 500 * 1000 * 2)]);
    // And multipart, whose parts may each declare their charset.
    const { products, ...order } = orderPayload();
    const lines = Array.from({ length: 500 }, (_, i) => ({ ...products[0], external_id: `p${i}`, name: undefined }));
    const names = lines.map((_, i) => ({ name: `products[${i}][name]`, value: new Uint8Array(900).fill(0x80), type: "text/plain; charset=windows-1252" }));
    const multipart = multipartBody("x", { ...order, products: lines }, names);
    expect(multipart.length).toBeLessThan(MiB);
    const multipartPast = await post(creds, multipart, "multipart/form-data; boundary=x");
    expect([multipartPast.status, multipartPast.json]).toEqual([413, tooLarge("windows-1252", multipart.length + 500 * 900 * 2)]);
    expect((await ordersOf(creds)).length).toBe(1);
  });

  it("decodes and checks JSON the same way on every other write endpoint", async () => {
    const creds = await createAccount();
    const bad = await call("POST", "/api/v1/suppliers", { creds, rawBody: bytesOf('{"name":"Tuin@@"}', [0xff]), headers: { "content-type": "application/json" } });
    expect([bad.status, bad.json]).toEqual([400, notValid("UTF-8", 0xff, 13)]);
    const lone = await call("POST", "/api/v1/suppliers", { creds, rawBody: '{"name":"Tuin\\ud800"}', headers: { "content-type": "application/json" } });
    expect([lone.status, lone.json.errors]).toEqual([
      422,
      { name: ["The name field must be Unicode text: \\ud800 is half of a surrogate pair, no character. Send the character itself, or both halves of its pair."] },
    ]);
    const latin = await call("POST", "/api/v1/suppliers", {
      creds,
      rawBody: bytesOf('{"name":"Caf@@"}', [0xe9]),
      headers: { "content-type": "application/json; charset=iso-8859-1" },
    });
    expect([latin.status, latin.json.name]).toEqual([201, "Café"]);
    expect((await rows("SELECT name FROM suppliers WHERE account_id = ?", creds.accountId)).map((r) => r.name)).toEqual(["Café"]);
  });
});

const URLENCODED = "application/x-www-form-urlencoded";

/** A multipart/form-data body byte for byte: the order's PHP fields, then the extra parts (raw bytes allowed). */
function multipartBody(boundary: string, order: Parameters<typeof phpFields>[0], extra: { name: string; value: Uint8Array; type?: string }[]) {
  const parts = [...phpFields(order).map(([name, value]) => ({ name, value: utf8(value), type: undefined as string | undefined })), ...extra];
  const out: number[] = [];
  for (const part of parts) {
    out.push(...utf8(`--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"\r\n${part.type ? `Content-Type: ${part.type}\r\n` : ""}\r\n`));
    out.push(...part.value, ...utf8("\r\n"));
  }
  out.push(...utf8(`--${boundary}--\r\n`));
  return new Uint8Array(out);
}

describe("form bodies: the same charsets, the same refusals", () => {
  it("reads an urlencoded body declared iso-8859-1 or windows-1252 in that charset", async () => {
    const creds = await createAccount();
    for (const [charset, escapes, text] of [
      ["iso-8859-1", "Caf%E9", "Café"],
      ["windows-1252", "%80+%93OK%94", "€ “OK”"],
    ]) {
      const payload = orderPayload({ products: [{ ...orderPayload().products[0], name: "NAME" }] });
      const created = await post(creds, httpBuildQuery(payload).replace("=NAME&", `=${escapes}&`), `${URLENCODED}; charset=${charset}`);
      expect([created.status, created.json.message], charset).toEqual([200, "Order created"]);
      const shown = await call("GET", `/api/v1/orders/${created.json.reference}`, { creds });
      expect(shown.json.order_lines[0].name, charset).toBe(text);
    }
  });

  it("refuses an urlencoded body with bytes its charset has no character for (400), or an unknown charset (415)", async () => {
    const creds = await createAccount();
    const body = httpBuildQuery(orderPayload({ source: "SOURCE" }));
    const bad = await post(creds, body.replace("=SOURCE&", "=%81&"), `${URLENCODED}; charset=windows-1252`);
    expect([bad.status, bad.json]).toEqual([400, { message: "Bad Request", error: "The form body is not valid windows-1252 once its %-escapes are decoded." }]);
    const unknown = await post(creds, body, `${URLENCODED}; charset=koi8-r`);
    expect([unknown.status, unknown.json.error]).toEqual([
      415,
      'The charset "koi8-r" is not supported. Send the body as utf-8 (the default), iso-8859-1 (latin1), windows-1252 (cp1252) or us-ascii.',
    ]);
    expect(await ordersOf(creds)).toEqual([]);
  });

  it("refuses two multipart orders whose external_ids differ only in bytes that are not UTF-8: both 400 naming the field, nothing stored", async () => {
    const creds = await createAccount();
    const prefix = unique("U8");
    const { external_id: _, ...rest } = orderPayload();
    for (const [byte, quantity] of [[0xff, 2], [0xfe, 9]]) {
      const order = { ...rest, products: [{ ...rest.products[0], quantity }] };
      const body = multipartBody("b0undary", order, [{ name: "external_id", value: bytesOf(`${prefix}@@`, [byte]) }]);
      const res = await post(creds, body, "multipart/form-data; boundary=b0undary");
      expect([res.status, res.json]).toEqual([400, { message: "Bad Request", error: 'The form field "external_id" is not valid UTF-8.' }]);
    }
    expect(await ordersOf(creds)).toEqual([]);
  });

  it("keeps a U+FEFF that a form key or value starts with, as its JSON twin does: a byte order mark is no content only at the start of a JSON body", async () => {
    const creds = await createAccount();
    const bom = [0xef, 0xbb, 0xbf];
    // custom is kept as sent (text fields are trimmed, U+FEFF with the blanks, from JSON and forms alike).
    const twin = await post(creds, JSON.stringify(orderPayload({ custom: { note: "\ufeffhi", "\ufeffkey": "k" } })), "application/json");
    expect([twin.status, twin.json.message]).toEqual([200, "Order created"]);
    expect((await call("GET", `/api/v1/orders/${twin.json.reference}`, { creds })).json.custom).toEqual({ note: "\ufeffhi", "\ufeffkey": "k" });
    // urlencoded, %-escaped.
    const query = `${httpBuildQuery(orderPayload())}&custom[note]=%EF%BB%BFhi&custom[%EF%BB%BFkey]=k`;
    const form = await post(creds, query, URLENCODED);
    expect([form.status, form.json.message]).toEqual([200, "Order created"]);
    expect((await call("GET", `/api/v1/orders/${form.json.reference}`, { creds })).json.custom).toEqual({ note: "\ufeffhi", "\ufeffkey": "k" });
    // multipart, raw: the part's content starts with the three bytes.
    const body = multipartBody("x", orderPayload(), [{ name: "custom[note]", value: bytesOf("@@hi", bom) }]);
    const multipart = await post(creds, body, "multipart/form-data; boundary=x");
    expect([multipart.status, multipart.json.message]).toEqual([200, "Order created"]);
    expect((await call("GET", `/api/v1/orders/${multipart.json.reference}`, { creds })).json.custom).toEqual({ note: "\ufeffhi" });
    // A JSON body that starts with one: the mark is no content, the body reads as without it.
    const json = await post(creds, bytesOf(`@@${JSON.stringify(orderPayload())}`, bom), "application/json");
    expect([json.status, json.json.message]).toEqual([200, "Order created"]);
  });

  it("reads a multipart field in the charset its part declares, else the body's, else UTF-8", async () => {
    const creds = await createAccount();
    const cases: [string, { type?: string; raw: number[] }, string][] = [
      ["multipart/form-data; boundary=x", { type: "text/plain; charset=iso-8859-1", raw: [0x43, 0x61, 0x66, 0xe9] }, "Café"],
      ["multipart/form-data; charset=windows-1252; boundary=x", { raw: [0x80, 0x20, 0x35] }, "€ 5"],
      ["multipart/form-data; charset=windows-1252; boundary=x", { type: "text/plain; charset=utf-8", raw: [0xe2, 0x82, 0xac] }, "€"],
      ["multipart/form-data; boundary=x", { raw: [0x4d, 0xc3, 0xbc, 0x6c] }, "Mül"],
    ];
    for (const [type, part, text] of cases) {
      const { products, ...order } = orderPayload();
      const { name: _, ...line } = products[0];
      const body = multipartBody("x", { ...order, products: [line] }, [{ name: "products[0][name]", value: new Uint8Array(part.raw), type: part.type }]);
      const created = await post(creds, body, type);
      expect([created.status, created.json.message], `${type} ${part.type}`).toEqual([200, "Order created"]);
      const shown = await call("GET", `/api/v1/orders/${created.json.reference}`, { creds });
      expect(shown.json.order_lines[0].name, `${type} ${part.type}`).toBe(text);
    }
  });
});
