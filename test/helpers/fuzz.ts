// Property-based input for the reliability suite: junk values, mutations of valid bodies, and a
// runner with a fixed seed so every failure is reproducible (fast-check prints seed and path):
//   FUZZ_SEED=123 FUZZ_SCALE=10 npx vitest run test/reliability
import fc from "fast-check";
import { inject } from "vitest";

/** The seed of every property (FUZZ_SEED to change it); a failure report names it, with the path to replay. */
export const SEED = inject("fuzzSeed");

/** Runs the property `numRuns` times (times FUZZ_SCALE), reproducibly from SEED. */
export async function fuzz<T>(arbitrary: fc.Arbitrary<T>, numRuns: number, check: (value: T) => Promise<void>) {
  await fc.assert(fc.asyncProperty(arbitrary, check), { seed: SEED, numRuns: Math.round(numRuns * inject("fuzzScale")), endOnFailure: false });
}

// ---- Junk values ---------------------------------------------------------------

const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
const anyChar = fc.oneof(fc.string({ unit: "binary", minLength: 1, maxLength: 1 }), loneSurrogate);

/** Strings a hostile or sloppy client sends: prototype keys, number-likes, control and bidi characters. */
export const NASTY_STRINGS = [
  "",
  " ",
  "\t\n",
  "null",
  "undefined",
  "true",
  "0",
  "-1",
  "-0",
  "1e309",
  "NaN",
  "Infinity",
  "1,234.50",
  "435,45",
  "1.2.3",
  "0x1F",
  "١٢٣",
  "１２３",
  "__proto__",
  "constructor",
  "toString",
  "hasOwnProperty",
  "valueOf",
  "prototype",
  "NL",
  "Netherlands",
  "United States (US)",
  "31-02-2026",
  "2026-13-01",
  "a@b",
  "'; DROP TABLE orders; --",
  "%s%n%x",
  "\u0000",
  "\ud800",
  "\udfff",
  "😀",
  "e\u0301",
  "\u202e",
  "<script>alert(1)</script>",
  "${process.env}",
];
export const nastyString = fc.constantFrom(...NASTY_STRINGS);

/**
 * The few that break lookups and storage rather than parsing: tried in every field, one at a time
 * (the random fuzz draws from NASTY_STRINGS too, but only by chance in a field where it matters).
 */
export const HOSTILE_STRINGS = ["__proto__", "constructor", "toString", "\ud800"];

export const text = fc.oneof(
  { weight: 3, arbitrary: fc.string({ unit: anyChar, maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", maxLength: 20 }) },
  { weight: 3, arbitrary: nastyString },
);

/** A string far over every length cap (the largest text field allows 2048), printed short in reports. */
export class Huge {
  constructor(
    readonly unit: string,
    readonly count: number,
  ) {}
  toJSON(): string {
    return this.unit.repeat(this.count);
  }
  [fc.toStringMethod]() {
    return `Huge(${JSON.stringify(this.unit)} x ${this.count})`;
  }
}
const hugeString = fc
  .tuple(fc.constantFrom("x", "é", "😀", "\ud800", " "), fc.integer({ min: 2_100, max: 60_000 }))
  .map(([unit, n]) => new Huge(unit, n));

const numberAsString = fc.oneof(fc.integer().map(String), fc.double().map(String), fc.integer().map((n) => ` ${n} `));

/**
 * Nesting far beyond the 5 levels `custom` allows, and beyond what naive recursion survives. A
 * value that serialises as the nested structure but prints short in fast-check's reports.
 */
export class Deep {
  constructor(
    readonly depth: number,
    readonly asArray: boolean,
  ) {}
  toJSON(): unknown {
    let v: unknown = "leaf";
    for (let i = 0; i < this.depth; i++) v = this.asArray ? [v] : { k: v };
    return v;
  }
  [fc.toStringMethod]() {
    return `Deep(${this.depth}, ${this.asArray ? "array" : "object"})`;
  }
}
const deep = fc.tuple(fc.integer({ min: 2, max: 3_000 }), fc.boolean()).map(([depth, asArray]) => new Deep(depth, asArray));

export const junk: fc.Arbitrary<unknown> = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -1, 1e308, -1e308, 2 ** 53 + 1, 0.1 + 0.2, 1e-320),
  text,
  numberAsString,
  hugeString,
  fc.jsonValue({ maxDepth: 3 }),
  fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 4 }),
  fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 }),
  fc.constant([]),
  fc.constant({}),
  deep,
);

/** A generated value is fast-check's (and may be shared, e.g. fc.constant({})): never mutate it in place. */
const own = (v: unknown) => (v instanceof Deep || v instanceof Huge ? v : structuredClone(v));

// ---- Mutations of a valid body ------------------------------------------------------

export type Path = (string | number)[];

/** Every path in a JSON value: objects, arrays and leaves (the root excluded). */
export function pathsOf(value: unknown, prefix: Path = []): Path[] {
  if (value === null || typeof value !== "object") return [];
  const out: Path[] = [];
  for (const [k, v] of Object.entries(value)) {
    const path = [...prefix, Array.isArray(value) ? Number(k) : k];
    out.push(path, ...pathsOf(v, path));
  }
  return out;
}

export type Mutation =
  | { kind: "delete"; path: Path }
  | { kind: "set"; path: Path; value: unknown }
  | { kind: "flip"; path: Path }
  | { kind: "add"; path: Path; key: string; value: unknown };

export function mutations(paths: Path[]): fc.Arbitrary<Mutation[]> {
  const path = fc.constantFrom(...paths);
  const objectPath = fc.constantFrom<Path>([], ...paths);
  const mutation = fc.oneof(
    fc.record({ kind: fc.constant("delete" as const), path }),
    { weight: 3, arbitrary: fc.record({ kind: fc.constant("set" as const), path, value: junk }) },
    fc.record({ kind: fc.constant("flip" as const), path }),
    fc.record({ kind: fc.constant("add" as const), path: objectPath, key: text, value: junk }),
  );
  return fc.array(mutation, { minLength: 1, maxLength: 4 });
}

/** The same value with another JSON type of the same meaning or shape. */
function flipped(value: unknown): unknown {
  if (typeof value === "number") return String(value);
  if (typeof value === "string") return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : [value];
  if (typeof value === "boolean") return value ? "true" : 0;
  if (Array.isArray(value)) return Object.fromEntries(value.map((v, i) => [String(i), v]));
  if (value !== null && typeof value === "object") return Object.values(value);
  return value === null ? "null" : null;
}

/** Applies mutations to a deep copy. Keys are set as own properties, "__proto__" included. */
export function mutate<T>(body: T, list: Mutation[]): unknown {
  let root: unknown = structuredClone(body);
  for (const m of list) {
    if (m.path.length === 0) {
      if (m.kind === "add" && isPlainObject(root)) define(root, m.key, own(m.value));
      continue;
    }
    const parent = m.path.slice(0, -1).reduce<unknown>(
      (cur, key) => (cur !== null && typeof cur === "object" ? (cur as Record<string, unknown>)[key] : undefined),
      root,
    );
    if (parent === null || typeof parent !== "object") continue;
    const key = m.path[m.path.length - 1];
    const record = parent as Record<string | number, unknown>;
    if (m.kind === "delete") {
      if (Array.isArray(parent) && typeof key === "number") parent.splice(key, 1);
      else delete record[key];
    } else if (m.kind === "set") define(parent, key, own(m.value));
    else if (m.kind === "flip") define(parent, key, flipped(record[key]));
    else {
      const target = record[key];
      if (isPlainObject(target)) define(target, m.key, own(m.value));
    }
  }
  return root;
}

const isPlainObject = (v: unknown): v is object => v !== null && typeof v === "object" && !Array.isArray(v);

function define(target: object, key: string | number, value: unknown) {
  Object.defineProperty(target, key, { value, enumerable: true, configurable: true, writable: true });
}
