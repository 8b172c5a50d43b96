// The PHP bracket-key decoder: what it builds, what it refuses, and its bounds at their maximum and one past.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/lib/errors";
import { decodeFormFields, FORM_LIMITS, parseUrlEncoded } from "../../src/lib/form-body";

const enc = (s: string) => new TextEncoder().encode(s);
const decode = (body: string) => decodeFormFields(parseUrlEncoded(enc(body)));

function refusal(body: string) {
  return refused(() => decode(body));
}

function refused(run: () => unknown) {
  try {
    run();
  } catch (e) {
    if (e instanceof ApiError) return { status: e.status, body: e.body };
    throw e;
  }
  throw new Error("accepted");
}

describe("decodeFormFields", () => {
  it("builds nested objects and lists from bracket keys", () => {
    expect(decode("a=1&b[c]=2&b[d][e]=3&l[0]=x&l[1]=y&p[]=1&p[]=2&o[][n]=1&o[][n]=2")).toEqual({
      a: "1",
      b: { c: "2", d: { e: "3" } },
      l: ["x", "y"],
      p: ["1", "2"],
      o: [{ n: "1" }, { n: "2" }],
    });
  });

  it("makes a list of numbered members 0..n-1 in any order, and an object of anything else", () => {
    expect(decode("l[1]=b&l[0]=a")).toEqual({ l: ["a", "b"] });
    expect(decode("g[0]=a&g[2]=c")).toEqual({ g: { 0: "a", 2: "c" } });
    expect(decode("h[99999999]=a")).toEqual({ h: { 99999999: "a" } });
    expect(decode("z[01]=a&z[0]=b")).toEqual({ z: { "01": "a", 0: "b" } });
    expect(decode("m[0]=a&m[x]=b")).toEqual({ m: { 0: "a", x: "b" } });
  });

  it("keeps __proto__ and constructor as plain keys, as JSON.parse does", () => {
    const out = decode("__proto__[x]=1&c[constructor]=2");
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype);
    expect(JSON.stringify(out)).toBe('{"__proto__":{"x":"1"},"c":{"constructor":"2"}}');
    expect(({} as Record<string, unknown>).x).toBeUndefined();
  });

  it("refuses malformed and conflicting keys with a 400 that names the key", () => {
    const cases: [string, string][] = [
      ["a[b=1", 'The form key "a[b" has an unclosed bracket.'],
      ["a]b=1", 'The form key "a]b" has a closing bracket without an opening one.'],
      ["[a]=1", 'The form key "[a]" has no name before its brackets.'],
      ["a[b]c=1", 'The form key "a[b]c" has text after a closing bracket.'],
      ["a[b[c]]=1", 'The form key "a[b[c]]" has a bracket inside brackets.'],
      ["a=1&a[b]=2", 'The form key "a[b]" uses "a" as a group, which another key gives a value.'],
      ["a[b]=2&a=1", 'The form key "a" gives a value to "a", which other keys use as a group.'],
      ["a[]=1&a[x]=2", 'The form key "a[x]" mixes [] with named or numbered members of "a".'],
      ["a[0]=1&a[]=2", 'The form key "a[]" mixes [] with named or numbered members of "a".'],
      ["a=1&a=2", 'The form key "a" is sent more than once.'],
      ["a[0][b]=1&a[0][b]=1", 'The form key "a[0][b]" is sent more than once.'],
    ];
    for (const [body, error] of cases) expect(refusal(body), body).toEqual({ status: 400, body: { message: "Bad Request", error } });
  });

  it("takes keys up to its depth bound and refuses one level more", () => {
    const at = `a${"[b]".repeat(FORM_LIMITS.maxDepth - 1)}`;
    expect(JSON.stringify(decode(`${at}=1`))).toBe(`{"a":${'{"b":'.repeat(FORM_LIMITS.maxDepth - 1)}"1"${"}".repeat(FORM_LIMITS.maxDepth)}`);
    expect(refusal(`${at}[b]=1`).body.error).toBe(`The form key "${at}[b]" is nested deeper than 8 levels.`);
  });

  it("takes keys up to its length bound and refuses one character more", () => {
    const at = `c[${"k".repeat(FORM_LIMITS.maxKeyLength - 3)}]`;
    expect(at.length).toBe(FORM_LIMITS.maxKeyLength);
    expect(decode(`${at}=1`)).toEqual({ c: { ["k".repeat(FORM_LIMITS.maxKeyLength - 3)]: "1" } });
    const past = `c[${"k".repeat(FORM_LIMITS.maxKeyLength - 2)}]`;
    expect(refusal(`${past}=1`).body.error).toBe(`The form key "${past.slice(0, 80)}…" is longer than 512 characters.`);
  });

  it("takes fields up to its count bound and refuses one more", () => {
    const fields = (n: number) => Array.from({ length: n }, (_, i) => `f[${i}]=${i}`).join("&");
    expect((decode(fields(FORM_LIMITS.maxFields)).f as string[]).length).toBe(20_000);
    expect(refusal(fields(FORM_LIMITS.maxFields + 1))).toEqual({
      status: 400,
      body: { message: "Bad Request", error: "The form body has more than 20000 fields." },
    });
    const many = Array.from({ length: FORM_LIMITS.maxFields + 1 }, (_, i): [string, string] => [`g${i}`, ""]);
    expect(refused(() => decodeFormFields(many)).body.error).toBe("The form body has more than 20000 fields.");
  });

  it("refuses a file among the fields with a 422 on the field's path", () => {
    try {
      decodeFormFields([["products[0][name]", "x"], ["products[0][image_url]", new File(["x"], "a.png")]]);
      expect.unreachable();
    } catch (e) {
      expect((e as ApiError).body).toEqual({
        message: "Errors",
        errors: { "products.0.image_url": ["The products.0.image_url field must be text, not a file."] },
      });
    }
  });
});

describe("parseUrlEncoded", () => {
  it("reads + as a space, %-escapes as UTF-8 bytes, and a stray % as itself", () => {
    expect(parseUrlEncoded(enc("a=b+c&d%5B0%5D=%C3%A9t%C3%A9&e=100%&f=%zz&g&&h="))).toEqual([
      ["a", "b c"],
      ["d[0]", "été"],
      ["e", "100%"],
      ["f", "%zz"],
      ["g", ""],
      ["h", ""],
    ]);
    expect(parseUrlEncoded(enc(""))).toEqual([]);
    expect(parseUrlEncoded(enc("a=1=2"))).toEqual([["a", "1=2"]]);
  });

  it("refuses bytes that are not UTF-8", () => {
    for (const body of [enc("a=%E9t%E9"), new Uint8Array([0x61, 0x3d, 0xe9])]) {
      expect(refused(() => parseUrlEncoded(body))).toEqual({
        status: 400,
        body: { message: "Bad Request", error: "The form body is not valid UTF-8 once its %-escapes are decoded." },
      });
    }
  });
});
