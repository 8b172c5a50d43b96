// Country input from webshops -> ISO 3166-1 alpha-2. Plugins send codes ("NL"), English names
// ("Netherlands", "United States (US)") or the shop's own language ("Nederland", "Deutschland").
import countries from "i18n-iso-countries";
import de from "i18n-iso-countries/langs/de.json";
import en from "i18n-iso-countries/langs/en.json";
import es from "i18n-iso-countries/langs/es.json";
import fr from "i18n-iso-countries/langs/fr.json";
import it from "i18n-iso-countries/langs/it.json";
import nl from "i18n-iso-countries/langs/nl.json";
import pl from "i18n-iso-countries/langs/pl.json";
import pt from "i18n-iso-countries/langs/pt.json";
import sv from "i18n-iso-countries/langs/sv.json";
import da from "i18n-iso-countries/langs/da.json";
import cs from "i18n-iso-countries/langs/cs.json";

// The languages of the shops we serve first; English first so it wins ambiguous names.
const LOCALES = [en, nl, de, fr, es, it, pt, pl, sv, da, cs];
for (const locale of LOCALES) countries.registerLocale(locale);

const cache = new Map<string, string | null>();

export function toCountryCode(input: string): string | null {
  const key = input.trim();
  if (key === "") return null;
  const hit = cache.get(key);
  if (hit !== undefined) return hit;
  const code = resolve(key);
  if (cache.size < 2000) cache.set(key, code);
  return code;
}

// WooCommerce's own English names (its i18n/countries.php) that the library does not know.
// "Virgin Islands (US)" must not fall through to the "(US)" suffix rule below.
// A Map, not an object literal: a country sent as "constructor" or "__proto__" must not find
// Object.prototype's members.
const WOOCOMMERCE_NAMES = new Map<string, string>(Object.entries({
  belau: "PW",
  "bonaire, saint eustatius and saba": "BQ",
  "congo (brazzaville)": "CG",
  "congo (kinshasa)": "CD",
  "falkland islands": "FK",
  "macao s.a.r., china": "MO",
  "palestinian territory": "PS",
  "saint martin (dutch part)": "SX",
  "south georgia/sandwich islands": "GS",
  "united kingdom (uk)": "GB",
  "united states (us)": "US",
  "united states (us) minor outlying islands": "UM",
  vatican: "VA",
  "virgin islands (british)": "VG",
  "virgin islands (us)": "VI",
  // ISO 3166-1 reserves UK for the United Kingdom; shops send it.
  uk: "GB",
}));

function resolve(value: string): string | null {
  const known = WOOCOMMERCE_NAMES.get(value.toLowerCase());
  if (known) return known;
  if (/^[a-z]{2}$/i.test(value)) return countries.isValid(value) ? value.toUpperCase() : null;
  if (/^[a-z]{3}$/i.test(value)) {
    const alpha2 = countries.alpha3ToAlpha2(value.toUpperCase());
    if (alpha2) return alpha2;
  }
  for (const locale of LOCALES) {
    const code = countries.getSimpleAlpha2Code(value, locale.locale);
    if (code) return code;
  }
  // Other names with the code appended, as WooCommerce does ("United States (US)").
  const suffix = /\(([a-z]{2})\)\s*$/i.exec(value);
  if (suffix && countries.isValid(suffix[1])) return suffix[1].toUpperCase();
  return null;
}
