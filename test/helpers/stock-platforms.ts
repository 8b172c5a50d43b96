// Stock-sync tests against the Shopware, Magento and PrestaShop stand-ins: a shop of the platform
// with its catalogue, a connection to it through the public API, and what the shop received with
// each body as sent (JSON parsed, XML as text).
import { createStandInShop, standInShop, type StandInShopHandle } from "../shops/stand-ins/client";
import { createAccount } from "./factories";
import { call, type Credentials } from "./http";
import { pushOffers, supplierFeed, syncsEnded, type Offer } from "./stock";

export async function platformShop(creds: Credentials, platform: "shopware" | "magento" | "prestashop" | "shopify", seed: unknown, settings: Record<string, unknown>) {
  const shop = await createStandInShop(platform, seed);
  const res = await call("POST", "/api/v1/shop-connections", {
    creds,
    body: { platform, name: "Stock shop", base_url: shop.base_url, credentials: shop.credentials, settings },
  });
  if (res.status !== 201) throw new Error(`connection: ${res.status} ${res.text}`);
  return { shop, connectionId: res.json.id as number };
}

/** What the shop received after the first `from` requests: method, path with its (decoded) query, the body. */
export async function receivedFrom(shop: StandInShopHandle, from = 0) {
  const { received } = await standInShop(shop);
  return received.slice(from).map((r) => {
    const query = Object.entries(r.query)
      .map(([k, v]) => `${k}=${v}`)
      .join("&");
    let body: unknown = r.body || null;
    try {
      body = r.body ? JSON.parse(r.body) : null;
    } catch {
      // XML: kept as the text sent
    }
    return [r.method, r.path + (query ? `?${query}` : ""), body] as [string, string, any];
  });
}

export async function shopState<State>(shop: StandInShopHandle): Promise<State> {
  return (await standInShop<State>(shop)).state;
}

/** An account with a shop of the platform, a supplier pushing these offers, and the sync that push started, ended. */
export async function syncedShop(platform: "shopware" | "magento" | "prestashop" | "shopify", seed: unknown, settings: Record<string, unknown>, offers: Offer[], before?: (shop: StandInShopHandle) => Promise<void>) {
  const creds = await createAccount();
  const { shop, connectionId } = await platformShop(creds, platform, seed, settings);
  if (before) await before(shop);
  const { feedId } = await supplierFeed(creds);
  await pushOffers(creds, feedId, offers);
  const [sync] = await syncsEnded(creds, connectionId);
  return { creds, shop, connectionId, feedId, sync };
}

/** The supplier pushes again; answers the connection's newest sync once ended, and what the shop received meanwhile. */
export async function syncAgain(creds: Credentials, shop: StandInShopHandle, connectionId: number, feedId: number, offers: Offer[], count = 2) {
  const before = (await standInShop(shop)).received.length;
  await pushOffers(creds, feedId, offers);
  const [sync] = await syncsEnded(creds, connectionId, count);
  return { sync, received: await receivedFrom(shop, before) };
}
