// Country names as the plugins really send them: every name of WooCommerce's and PrestaShop's own
// lists resolves to the list's ISO code, and names that could mean two countries stay refused.
import { describe, expect, it } from "vitest";
import { toCountryCode } from "../../src/lib/countries";
import prestashopDe from "../fixtures/countries/prestashop-de";
import prestashopEn from "../fixtures/countries/prestashop-en";
import prestashopEs from "../fixtures/countries/prestashop-es";
import prestashopFr from "../fixtures/countries/prestashop-fr";
import prestashopIt from "../fixtures/countries/prestashop-it";
import prestashopNl from "../fixtures/countries/prestashop-nl";
import woocommerceEn from "../fixtures/countries/woocommerce-en";
import woocommerceNl from "../fixtures/countries/woocommerce-nl";

const entries = (list: string) => list.trim().split("\n").map((l) => [l.slice(0, 2), l.slice(3)] as const);

const LISTS: [string, string, number][] = [
  ["WooCommerce en", woocommerceEn, 250],
  ["WooCommerce nl", woocommerceNl, 244],
  ["PrestaShop en", prestashopEn, 257],
  ["PrestaShop nl", prestashopNl, 244],
  ["PrestaShop de", prestashopDe, 257],
  ["PrestaShop fr", prestashopFr, 244],
  ["PrestaShop es", prestashopEs, 244],
  ["PrestaShop it", prestashopIt, 257],
];

/**
 * Ids of the lists that are no country to ship to, refused: AN, the Netherlands Antilles, dissolved
 * in 2010 into CW, SX and BQ; and CLDR regions without an ISO 3166-1 country code, which PrestaShop's
 * country table does not create (Ascension, Clipperton, Diego Garcia, Ceuta & Melilla, the Canary
 * Islands, Outlying Oceania, Tristan da Cunha).
 */
const NO_COUNTRY = new Set(["AN", "AC", "CP", "DG", "EA", "IC", "QO", "TA"]);

describe("country names of the plugins' own lists", () => {
  for (const [label, list, size] of LISTS) {
    it(`resolves every name of ${label} to its ISO code`, () => {
      const all = entries(list);
      expect(all).toHaveLength(size);
      const wrong = all
        // PrestaShop es names the United Kingdom "RU", Russia's ISO code: an order tells them apart
        // by its postcode (test/orders/create.countries.test.ts).
        .filter(([code, name]) => !(label === "PrestaShop es" && code === "GB" && name === "RU"))
        .map(([code, name]) => [name, NO_COUNTRY.has(code) ? null : code, toCountryCode(name)])
        .filter(([, expected, got]) => expected !== got);
      expect(wrong).toEqual([]);
    });
  }

  it("covers the names the issue found refused", () => {
    const cases: [string, string][] = [
      ["Cura&ccedil;ao", "CW"],
      ["Saint Barth&eacute;lemy", "BL"],
      ["S&atilde;o Tom&eacute; and Pr&iacute;ncipe", "ST"],
      ["Amerikaans Samoa", "AS"],
      ["Birma (Myanmar)", "MM"],
      ["Boeroendi", "BI"],
      ["Democratische Republiek Congo (Kinshasa)", "CD"],
      ["Republiek Congo (Brazzaville)", "CG"],
      ["Oost Timor", "TL"],
      ["Faeröer Eilanden", "FO"],
      ["Man (eiland)", "IM"],
      ["Macedonië", "MK"],
      ["Palestijnse gebieden", "PS"],
      ["Filippijnen", "PH"],
      ["Saoedi-Arabië", "SA"],
      ["Maagdeneilanden (Brits)", "VG"],
      ["Maagdeneilanden (VS)", "VI"],
      ["Frans-Guinee", "GF"],
    ];
    expect(cases.map(([name]) => [name, toCountryCode(name)])).toEqual(cases);
  });
});

describe("spelling", () => {
  it("ignores case, diacritics, spacing, hyphens, entities and word order", () => {
    const cases: [string, string][] = [
      ["OOST-TIMOR", "TL"],
      ["oost timor", "TL"],
      ["  Saoedi   Arabie ", "SA"],
      ["Faeroer eilanden", "FO"],
      ["Myanmar (Birma)", "MM"],
      ["cote d'ivoire", "CI"],
      ["C&ocirc;te d&#8217;Ivoire", "CI"],
      ["Antigua & Barbuda", "AG"],
      ["Bosnia and Herzegovina", "BA"],
      ["Korea, Republic of", "KR"],
      ["Congo, the Democratic Republic of the", "CD"],
      ["EE. UU.", "US"],
      ["VS", "US"],
      ["uk", "GB"],
      ["nld", "NL"],
      ["Türkiye", "TR"],
      ["Turkey", "TR"],
      ["Ireland", "IE"],
    ];
    expect(cases.map(([name]) => [name, toCountryCode(name)])).toEqual(cases);
  });

  it("tells near names apart", () => {
    const cases: [string, string][] = [
      ["Guinea", "GN"],
      ["Guinee", "GN"],
      ["Guinée", "GN"],
      ["Equatorial Guinea", "GQ"],
      ["Guinea-Bissau", "GW"],
      ["Papua New Guinea", "PG"],
      ["French Guiana", "GF"],
      ["Frans-Guyana", "GF"],
      ["Samoa", "WS"],
      ["American Samoa", "AS"],
      ["Sudan", "SD"],
      ["South Sudan", "SS"],
      ["Niger", "NE"],
      ["Nigeria", "NG"],
      ["Dominica", "DM"],
      ["Dominican Republic", "DO"],
      ["Saint Martin", "MF"],
      ["Sint Maarten", "SX"],
      ["North Korea", "KP"],
      ["South Korea", "KR"],
      ["Congo-Brazzaville", "CG"],
      ["Congo-Kinshasa", "CD"],
      ["Sint-Maarten (Frans deel)", "MF"],
      ["Saint Martin (Dutch part)", "SX"],
      ["Virgin Islands (US)", "VI"],
      ["Virgin Islands (British)", "VG"],
      ["Niederlande", "NL"],
      ["Island", "IS"],
    ];
    expect(cases.map(([name]) => [name, toCountryCode(name)])).toEqual(cases);
  });

  it("refuses what could mean two countries, and what is no country", () => {
    const refused = [
      "Congo",
      "Kongo",
      "Korea",
      "Corée",
      "Virgin Islands",
      "Maagdeneilanden",
      "Jungferninseln",
      "Îles Vierges",
      "Islas Vírgenes",
      "Isole Vergini",
      "Republic of Congo (Kinshasa) and Brazzaville",
      "Netherlands Antilles",
      "Nederlandse Antillen",
      "Antilles Néerlandaises",
      "Canary Islands",
      "Ceuta & Melilla",
      "Republic",
      "Islands",
      "Narnia",
      "XX",
      "ZZZ",
      "constructor",
      "__proto__",
      "&amp;",
      "()",
    ];
    expect(refused.map((name) => [name, toCountryCode(name)])).toEqual(refused.map((name) => [name, null]));
  });
});
