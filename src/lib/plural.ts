// Counts in words, with the noun's number right: "1 line", "2 lines", "0 entries". Every count the
// console, a message or a log shows goes through here, so "1 entries" cannot come back in one place.
// English only (the console's language): Intl.PluralRules decides, so 1 is singular, 0 and 1.5 are not.

/** A noun by its singular ("line", plural "lines"), or both forms where the plural is not the singular plus "s". */
export type Noun = string | { one: string; many: string };

const rules = new Intl.PluralRules("en");

/** The noun's form for `n` things: plural(1, "line") is "line", plural(3, "line") "lines". */
export function plural(n: number, noun: Noun): string {
  const { one, many } = typeof noun === "string" ? { one: noun, many: `${noun}s` } : noun;
  return rules.select(n) === "one" ? one : many;
}

/** `n` and the noun: count(1, "line") is "1 line", count(2, { one: "entry", many: "entries" }) "2 entries". */
export function count(n: number, noun: Noun): string {
  return `${n} ${plural(n, noun)}`;
}

/** The plural whatever the count: a list's name ("Pages of orders"). */
export const many = (noun: Noun): string => plural(2, noun);
