// Country names in real plugin orders: WooCommerce's names with HTML entities, PrestaShop's names in
// the shop's language, and the one name that is also another country's code.
import { describe, expect, it } from "vitest";
import { createAccount, orderPayload, unique } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";

async function countryOf(creds: Credentials, address: Record<string, unknown>) {
  const payload = orderPayload({ external_id: unique("c") });
  const body = { ...payload, shipping_address: { ...payload.shipping_address, ...address } };
  const res = await call("POST", "/api/v1/orders", { creds, body });
  if (res.status !== 200) return res.json;
  return (await call("GET", `/api/v1/orders/${res.json.reference}`, { creds })).json.shipping_address.country;
}

describe("countries in orders", () => {
  it("decodes WooCommerce's HTML entities before resolving the name", async () => {
    const creds = await createAccount();
    for (const [country, code] of [["Cura&ccedil;ao", "CW"], ["Saint Barth&eacute;lemy", "BL"], ["S&atilde;o Tom&eacute; and Pr&iacute;ncipe", "ST"]]) {
      expect(await countryOf(creds, { country }), country).toBe(code);
    }
  });

  it("resolves PrestaShop's Dutch names that were refused", async () => {
    const creds = await createAccount();
    for (const [country, code] of [["Maagdeneilanden (VS)", "VI"], ["Democratische Republiek Congo (Kinshasa)", "CD"], ["Faeröer Eilanden", "FO"]]) {
      expect(await countryOf(creds, { country }), country).toBe(code);
    }
  });

  it("refuses a name that could mean two countries with a 422 on the field", async () => {
    const creds = await createAccount();
    expect(await countryOf(creds, { country: "Congo" })).toEqual({
      message: "Errors",
      errors: {
        "shipping_address.country": [
          "The selected shipping_address.country is invalid. Send an ISO 3166-1 code (NL, NLD) or the country's name; a name that could mean two countries (Congo, Korea) needs its qualifier.",
        ],
      },
    });
  });

  it("reads PrestaShop es's \"RU\" with a UK postcode as the United Kingdom, and as Russia otherwise", async () => {
    const creds = await createAccount();
    expect(await countryOf(creds, { country: "RU", postcode: "SW1A 1AA", city: "London" })).toBe("GB");
    expect(await countryOf(creds, { country: "RU", postcode: "EC1A1BB", city: "London" })).toBe("GB");
    expect(await countryOf(creds, { country: "RU", postcode: "101000", city: "Moskva" })).toBe("RU");
    expect(await countryOf(creds, { country: "ru", postcode: "190000", city: "Sankt-Peterburg" })).toBe("RU");
    expect(await countryOf(creds, { country: "Rusia", postcode: "SW1A 1AA" })).toBe("RU");
  });
});
