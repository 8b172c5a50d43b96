// Country input from webshops -> ISO 3166-1 alpha-2. Plugins send codes ("NL"), English names
// ("Netherlands", "United States (US)", WooCommerce's "Cura&ccedil;ao" with its HTML entities) or
// the shop's own language (PrestaShop: "Nederland", "Maagdeneilanden (Brits)"). Names are looked
// up, after normalising spelling, in maintained data: i18n-iso-countries' names and the CLDR names
// of the runtime's ICU (Intl.DisplayNames). A name that could mean two countries is refused.
import { decodeHTML } from "entities";
import countries from "i18n-iso-countries";
import cs from "i18n-iso-countries/langs/cs.json";
import da from "i18n-iso-countries/langs/da.json";
import de from "i18n-iso-countries/langs/de.json";
import en from "i18n-iso-countries/langs/en.json";
import es from "i18n-iso-countries/langs/es.json";
import fr from "i18n-iso-countries/langs/fr.json";
import it from "i18n-iso-countries/langs/it.json";
import nl from "i18n-iso-countries/langs/nl.json";
import pl from "i18n-iso-countries/langs/pl.json";
import pt from "i18n-iso-countries/langs/pt.json";
import sv from "i18n-iso-countries/langs/sv.json";

// The languages of the shops we serve first.
const LOCALES = [en, nl, de, fr, es, it, pt, pl, sv, da, cs];
for (const locale of LOCALES) countries.registerLocale(locale);

/**
 * Names no data source gives, each checked against the plugin list it comes from (the country
 * tests name them); keys are written as a shop sends them and normalised like every name.
 */
const ALIASES: Record<string, string> = {
  // ISO 3166-1 reserves UK for the United Kingdom; shops send it.
  UK: "GB",
  // WooCommerce's English names.
  Belau: "PW",
  "Bonaire, Saint Eustatius and Saba": "BQ",
  "Macao S.A.R., China": "MO",
  "Palestinian Territory": "PS",
  "South Georgia/Sandwich Islands": "GS",
  "Saint Martin (Dutch part)": "SX",
  "Saint Martin (French part)": "MF",
  Vatican: "VA",
  "Virgin Islands (British)": "VG",
  "Virgin Islands (US)": "VI",
  "United States (US) Minor Outlying Islands": "UM",
  // WooCommerce's Dutch names (its nl_NL translation).
  Ålandseilanden: "AX",
  Boeroendi: "BI",
  "Heard en MacDonaldeilanden": "HM",
  "Sint-Bartholomeus": "BL",
  "Sint-Maarten (Frans deel)": "MF",
  Vaticaan: "VA",
  "West-Samoa": "WS",
  // PrestaShop's names, by language. Frans-Guinee is its Dutch (mis)translation of French Guiana.
  "Frans-Guinee": "GF",
  Filippijnen: "PH",
  "Franse Zuidelijke en Antarctische Gebieden": "TF",
  "Maagdeneilanden (Brits)": "VG",
  "Maagdeneilanden (VS)": "VI",
  "Palestijnse gebieden": "PS",
  "Palestinian Territories": "PS",
  "Palästinensische Autonomiegebiete": "PS",
  "Territori palestinesi": "PS",
  "Palestinien Occupé, Territoire": "PS",
  "Hong Kong SAR China": "HK",
  "Sonderverwaltungszone Hongkong": "HK",
  "RAS di Hong Kong": "HK",
  "Macau SAR China": "MO",
  "Sonderverwaltungsregion Macau": "MO",
  "RAS di Macao": "MO",
  // North Macedonia's name before 2019, still in shops' country tables.
  Macedonia: "MK",
  Macedonië: "MK",
  Mazedonien: "MK",
  Macédoine: "MK",
  Swasiland: "SZ",
  Suazilandia: "SZ",
  "Congo (RDC)": "CD",
  "Congo, Rép. Dém.": "CD",
  "Congo, Rép.": "CG",
  "Corée, Rép. Populaire Dém. de": "KP",
  "Libyenne, Jamahiriya Arabe": "LY",
  Syrienne: "SY",
  "Turks et Caiques, Îles": "TC",
  "Altre isole americane del Pacifico": "UM",
};

/** Names that fit more than one country: refused rather than guessed. */
const AMBIGUOUS = [
  "Congo",
  "Kongo",
  "Korea",
  "Corée",
  "Corea",
  "Virgin Islands",
  "Maagdeneilanden",
  "Jungferninseln",
  "Îles Vierges",
  "Islas Vírgenes",
  "Isole Vergini",
  "Samoa Islands",
  "Saint Martin Island",
  "Sint Maarten Island",
  "Netherlands Antilles",
  "Nederlandse Antillen",
  "Antilles Néerlandaises",
  "Niederländische Antillen",
  "Antillas Neerlandesas",
  "Antille Olandesi",
];

// Words that make no difference between two countries' names, in the languages we index.
const STOPWORDS = new Set(
  "the of and a an en de het van der die und et le la les l d du des y e ed del di da dei della dell do dos das".split(" "),
);
// "Island" words: "Norfolk (eiland)" and "Faeröer Eilanden" are Norfolk and Faeröer.
const ISLAND_WORDS = new Set(
  "isle island islands eiland eilanden insel inseln ile iles isla islas isola isole ilha ilhas wyspa wyspy ostrov ostrovy".split(" "),
);

const AMBIGUOUS_MARK = "";
/** Names as the data and the aliases write them, and (looked up only when those fail) their readings. */
type Index = { names: Map<string, string>; readings: Map<string, string> };
let index: Index | undefined;

const cache = new Map<string, string | null>();

export function toCountryCode(input: string): string | null {
  const key = input.trim();
  if (key === "") return null;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const code = resolve(key);
  // Bounded per isolate: a client sending endless distinct strings cannot grow it.
  if (cache.size < 2000) cache.set(key, code);
  return code;
}

function resolve(raw: string): string | null {
  const value = decodeHTML(raw).replace(/\s+/g, " ").trim();
  if (/^[a-z]{2}$/i.test(value) && countries.isValid(value)) return value.toUpperCase();
  if (/^[a-z]{3}$/i.test(value)) {
    const alpha2 = countries.alpha3ToAlpha2(value.toUpperCase());
    if (alpha2) return alpha2;
  }
  const names = indexOfNames();
  const exact = lookup(names, words(value));
  if (exact !== undefined) return exact || null;
  const codes = new Set<string>();
  for (const variant of variants(value)) {
    // A reading that fits several countries (or none) gives nothing.
    const code = lookup(names, variant);
    if (code) codes.add(code);
  }
  return codes.size === 1 ? [...codes][0] : null;
}

/**
 * Other readings of a name the data does not hold as written: without island words; a qualifier
 * in parentheses read together with the name ("Congo (Kinshasa)" -> Congo-Kinshasa), or dropped
 * when it only repeats the country ("Verenigde Staten (VS)") or says "island"; and a leading
 * "Republic (of)" dropped. Every reading that names a country must name the same one.
 */
function variants(value: string): string[][] {
  const out: string[][] = [];
  const all = words(value);
  const noIslands = all.filter((w) => !ISLAND_WORDS.has(w));
  if (noIslands.length > 0 && noIslands.length < all.length) out.push(noIslands);
  const paren = /^(.*?)\(([^)]*)\)(.*)$/.exec(value);
  if (paren) {
    const main = words(`${paren[1]} ${paren[3]}`);
    const qualifier = words(paren[2]);
    const core = main.filter((w) => !STATE_WORDS.includes(w));
    out.push([...core, ...qualifier]);
    if (qualifier.every((w) => ISLAND_WORDS.has(w))) out.push(main);
    else {
      const qualifierCode = paren[2].trim().length === 2 ? resolve(paren[2].trim()) : lookup(indexOfNames(), qualifier);
      const mainCode = lookup(indexOfNames(), main);
      if (qualifierCode && mainCode === qualifierCode) out.push(main);
    }
  }
  const core = all.filter((w) => !STATE_WORDS.includes(w));
  if (core.length > 0 && core.length < all.length) out.push(core);
  return out;
}

// "Republiek Congo (Brazzaville)", "Russie, Fédération de": the words of a state's form, not its name.
const STATE_WORDS = [
  "republiek", "republic", "republique", "republik", "republica", "repubblica", "rep",
  "democratische", "democratic", "democratique", "demokratische", "democratica", "dem",
  "federatie", "federation", "federacion", "federazione",
];

/** Lower case, no diacritics, no punctuation, no filler words: "Côte d’Ivoire" -> ["cote", "ivoire"]. */
export function words(name: string): string[] {
  return name
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(/ß/g, "ss")
    .replace(/æ/g, "ae")
    .replace(/œ/g, "oe")
    .replace(/[øö]/g, "o")
    .replace(/ł/g, "l")
    .replace(/[đð]/g, "d")
    .replace(/&/g, " and ")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w !== "" && !STOPWORDS.has(w));
}

/**
 * A name matches a known name written with the same words in any order and spacing:
 * "Oost Timor" = "Oost-Timor", "Faeröer Eilanden" = "Faeröereilanden", "Birma (Myanmar)" = "Myanmar (Birma)".
 */
function lookup(index: Index, w: string[]): string | undefined {
  if (w.length === 0) return undefined;
  const keys = [`=${w.join("")}`, `~${[...w].sort().join(" ")}`];
  for (const map of [index.names, index.readings]) {
    for (const key of keys) {
      const code = map.get(key);
      if (code !== undefined) return code;
    }
  }
  return undefined;
}

function indexOfNames(): Index {
  if (index) return index;
  const built: Index = { names: new Map(), readings: new Map() };
  const put = (map: Map<string, string>, name: string, code: string, force = false) => {
    const w = words(name);
    if (w.length === 0) return;
    for (const key of [`=${w.join("")}`, `~${[...w].sort().join(" ")}`]) {
      const known = map.get(key);
      map.set(key, force || known === undefined || known === code ? code : AMBIGUOUS_MARK);
    }
  };
  const add = (name: string, code: string, force = false) => put(built.names, name, code, force);
  // A data name also stands for its readings: "Falkland Islands (Malvinas)" is "Falkland Islands"
  // and "Malvinas"; "Bouvet Island" is "Bouvet". Two countries sharing a reading make it ambiguous.
  const addReadings = (name: string, code: string) => {
    add(name, code);
    const paren = /^(.*?)\(([^)]*)\)(.*)$/.exec(name);
    const forms = paren ? [name, `${paren[1]} ${paren[3]}`] : [name];
    if (paren && words(paren[2]).some((w) => w.length >= 4)) forms.push(paren[2]);
    for (const form of forms.slice(1)) put(built.readings, form, code);
    for (const form of forms) {
      const w = words(form);
      const land = w.filter((x) => !ISLAND_WORDS.has(x));
      if (land.length > 0 && land.length < w.length) put(built.readings, land.join(" "), code);
    }
  };
  const codes = Object.keys(countries.getAlpha2Codes());
  for (const locale of LOCALES) {
    for (const [code, list] of Object.entries(countries.getNames(locale.locale, { select: "all" }))) {
      for (const name of list) addReadings(name, code);
    }
  }
  // CLDR's names and short names ("EE. UU.", "VK") in the same languages, where the runtime has them.
  for (const locale of LOCALES) {
    for (const style of ["long", "short"] as const) {
      const names = new Intl.DisplayNames([locale.locale], { type: "region", style, fallback: "none" });
      for (const code of codes) {
        const name = names.of(code);
        if (name) addReadings(name, code);
      }
    }
  }
  for (const name of AMBIGUOUS) add(name, AMBIGUOUS_MARK, true);
  for (const [name, code] of Object.entries(ALIASES)) add(name, code, true);
  index = built;
  return built;
}
