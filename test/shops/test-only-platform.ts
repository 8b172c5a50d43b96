// A shop platform that exists only in the tests, in this one file: proof that a platform is one
// adapter (docs/adapters.md). Its shop's REST API is the fake remote (test/helpers/fake-remote.ts):
// it finds an order by GET /orders/{external id}, and writes a shipment and the completion by POST.
// test/app/adapters.extension.test.ts registers it and shows that the API, the console and the
// write-backs take it with nothing else changed.
import { z } from "zod";
import type { ShopPlatformName } from "../../src/db/schema";
import { described } from "../../src/lib/described-fields";
import type { ShopPlatform } from "../../src/shops/platforms/platform";
import { mode } from "../../src/shops/platforms/settings";

export const TEST_SHOP = "test_shop" as ShopPlatformName;

const credentials = z.object({ api_token: described(z.string().min(1).max(200), { label: "API token", hint: "Test shop: Settings > API, a token that may write orders.", secret: true }) }).strict();
const settings = z
  .object({
    mode,
    note_prefix: described(z.string().min(1).max(20).default("Intake"), { label: "Note prefix", hint: "Put before every note we write (up to 20 characters)." }),
  })
  .strict();

type Credentials = z.infer<typeof credentials>;
type Settings = z.infer<typeof settings>;

const headers = (token: string) => ({ authorization: `Bearer ${token}` });

export const testShopPlatform: ShopPlatform<Credentials, Settings> = {
  name: TEST_SHOP,
  label: "Test shop",
  credentials,
  settings,
  explainFailure: (failure, order) => `The test shop did not take the write for its order ${order.externalId}: ${failure.message}`,
  test: async (conn, http) => {
    await http.request({ path: `/orders`, headers: headers(conn.credentials.api_token) });
    return [{ name: "reach", ok: true, message: "the test shop answers" }];
  },
  findOrder: async (conn, http, order) => {
    await http.request({ path: `/orders/${encodeURIComponent(order.externalId)}`, headers: headers(conn.credentials.api_token) });
    return { id: order.externalId, number: order.externalId, items: [], extra: {} };
  },
  writeShipment: async (conn, http, shopOrder, write) => {
    await http.request({
      path: `/orders/${encodeURIComponent(shopOrder.id)}/shipments`,
      method: "POST",
      headers: headers(conn.credentials.api_token),
      json: { note: `${conn.settings.note_prefix}: ${write.order.reference}`, trackings: write.trackings.map((t) => t.number) },
    });
    return { outcome: "written", shopIds: [`shipment-${write.trackings.map((t) => t.number).join("+")}`] };
  },
  writeNote: async () => ({ outcome: "skipped", reason: "the test shop keeps no notes" }),
  hold: async () => ({ outcome: "skipped", reason: "the test shop has no on-hold state" }),
  release: async () => ({ outcome: "skipped", reason: "the test shop has no on-hold state" }),
  complete: async (conn, http, shopOrder) => {
    await http.request({ path: `/orders/${encodeURIComponent(shopOrder.id)}/complete`, method: "POST", headers: headers(conn.credentials.api_token), json: {} });
    return { outcome: "written", shopIds: [shopOrder.id] };
  },
};
