// Credentials never echoed, on every platform: a connection per platform made through the API to
// its stand-in shop, used by a real write-back, tested, edited, tested again with wrong
// credentials; no API answer (create, list, get, patch, test, shop-sync, a refused create), no
// console page (the list, each connection's page, each order's page), no recorded attempt and no
// log line holds a credential value (nor Shopware's access tokens), only the masked hints.
import { describe, expect, it, vi } from "vitest";
import { send, signIn } from "../helpers/console-http";
import { createAccount, createOrder, rows } from "../helpers/factories";
import { call } from "../helpers/http";
import { writeBacksSettled } from "../helpers/shops";
import { answer, awaitingPickup, supplierChain } from "../helpers/suppliers";
import { createStandInShop, standInShop } from "./stand-ins/client";
import type { ShopwareState } from "./stand-ins/shopware";

const MUG = "0190a7c1d2e34f5a8b9c0d1e2f3a4b5c";
/** Per platform: a shop holding one order of two mugs, and that order as the platform's plugin sends it (docs/shops/<platform>.md). */
const PLATFORMS: { platform: string; seed: unknown; externalId: string; product: Record<string, string>; wrong: Record<string, string> }[] = [
  {
    platform: "woocommerce",
    seed: { orders: [{ id: 4711, line_items: [{ id: 31, product_id: 501, sku: "MUG-BLUE", name: "Blue mug", quantity: 2 }] }] },
    externalId: "4711",
    product: { external_id: "31", reference: "MUG-BLUE" },
    wrong: { consumer_key: "ck_wrongwrongwrongwrongwrongwrongwrong0001", consumer_secret: "cs_wrongwrongwrongwrongwrongwrongwrong0002" },
  },
  {
    platform: "shopware",
    seed: { orders: [{ orderNumber: "10001", lineItems: [{ productId: MUG, productNumber: "SW-MUG", quantity: 2, label: "Blue mug" }] }] },
    externalId: "10001",
    product: { external_id: MUG, reference: "SW-MUG" },
    wrong: { client_id: "SWIAWRONGWRONGWRONGWRONG03", client_secret: "wrongwrongwrongwrongwrongwrongwrongwrong0004" },
  },
  {
    platform: "magento",
    seed: { orders: [{ entity_id: 42, increment_id: "000000123", items: [{ item_id: 1, product_id: 501, sku: "MUG-BLUE", qty_ordered: 2 }] }] },
    externalId: "000000123",
    product: { external_id: "501", reference: "MUG-BLUE" },
    wrong: { access_token: "wrongwrongwrongwrongwrongwrong05" },
  },
  {
    platform: "prestashop",
    seed: { orders: [{ id: 7, reference: "XKBKNABJK", rows: [{ id: 11, product_id: 501, product_reference: "MUG-BLUE", product_quantity: 2 }] }] },
    externalId: "XKBKNABJK",
    product: { external_id: "501", reference: "MUG-BLUE" },
    wrong: { webservice_key: "WRONGWRONGWRONGWRONGWRONGWRONG06" },
  },
];

const hints = (credentials: Record<string, string>) => Object.fromEntries(Object.entries(credentials).map(([k, v]) => [k, `…${v.slice(-4)}`]));

describe("shop connections' credentials", () => {
  it("appear in no API answer, console page, recorded attempt or log line, on any platform, right or wrong", async () => {
    const logged: string[] = [];
    const spies = (["log", "info", "warn", "error", "debug"] as const).map((level) =>
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(" "))),
    );
    try {
      const creds = await createAccount();
      const [{ key }] = await supplierChain(creds, [{ channel: "pull" }]);
      const secrets: string[] = [];
      const answers: string[] = [];
      const pages: string[] = [];
      const api = async (method: string, path: string, body?: unknown) => {
        const res = await call(method, path, { creds, body });
        answers.push(res.text);
        return res;
      };
      const made = [];
      for (const p of PLATFORMS) {
        const shop = await createStandInShop(p.platform, p.seed);
        secrets.push(...Object.values(shop.credentials), ...Object.values(p.wrong));
        const body = { platform: p.platform, name: `Shop ${p.platform}`, base_url: shop.base_url, credentials: shop.credentials, sources: [p.platform] };
        // Refused (a base_url that is not a URL): the credentials are not sent back beside the error.
        const refused = await api("POST", "/api/v1/shop-connections", { ...body, base_url: "not a url" });
        expect(refused.status).toBe(422);
        const created = await api("POST", "/api/v1/shop-connections", body);
        expect([created.status, created.json.credentials]).toEqual([201, hints(shop.credentials)]);
        const { reference } = await createOrder(creds, { external_id: p.externalId, source: p.platform, products: [{ ...p.product, name: "Blue mug", quantity: 2, price: 12.5 }] });
        made.push({ ...p, shop, id: created.json.id as number, reference });
      }

      // Each connection used for real: its order shipped and written into its shop.
      for (const m of made) await awaitingPickup(key!, m.reference);
      for (const m of made) {
        const order = (await api("GET", `/api/v1/orders/${m.reference}`)).json;
        expect((await answer(key!, [{ line_id: order.order_lines[0].id, action: "ship", quantity: 2, carrier: "DHL", tracking_number: `3S${m.platform.toUpperCase()}` }])).status).toBe(200);
      }
      for (const m of made) {
        const orderId = (await rows<{ id: number }>("SELECT id FROM orders WHERE reference = ?", m.reference))[0].id;
        const settled = await writeBacksSettled(orderId, 2);
        expect([m.platform, settled.map((w) => w.status)]).toEqual([m.platform, ["done", m.platform === "magento" ? "skipped" : "done"]]);
        const sync = await api("GET", `/api/v1/orders/${m.reference}/shop-sync`);
        expect(sync.json.data[0].attempts[0].calls.length).toBeGreaterThan(0);
      }

      for (const m of made) {
        const tested = await api("POST", `/api/v1/shop-connections/${m.id}/test`);
        expect([m.platform, tested.status, tested.json.ok]).toEqual([m.platform, 200, true]);
        await api("GET", `/api/v1/shop-connections/${m.id}`);
        await api("PATCH", `/api/v1/shop-connections/${m.id}`, { name: `Renamed ${m.platform}` });
        // Wrong credentials: the test says so, in words that do not quote them.
        const patched = await api("PATCH", `/api/v1/shop-connections/${m.id}`, { credentials: m.wrong });
        expect([patched.status, patched.json.credentials]).toEqual([200, hints(m.wrong)]);
        const failed = await api("POST", `/api/v1/shop-connections/${m.id}/test`);
        expect([m.platform, failed.status, failed.json.ok]).toEqual([m.platform, 200, false]);
      }
      await api("GET", "/api/v1/shop-connections");

      const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
      const page = async (path: string) => {
        const res = await send(path, { jar });
        const html = await res.text();
        expect([path, res.status]).toEqual([path, 200]);
        pages.push(html);
        return html;
      };
      await page("/console/shop-connections");
      for (const m of made) {
        expect(await page(`/console/shop-connections/${m.id}`)).toContain(`Renamed ${m.platform}`);
        expect(await page(`/console/orders/${m.reference}`)).toContain("In the shop");
      }

      // Shopware's access tokens are as secret as the credentials they were bought with.
      const shopware = made.find((m) => m.platform === "shopware")!;
      const tokens = Object.keys((await standInShop<ShopwareState>(shopware.shop)).state.tokens);
      expect(tokens.length).toBeGreaterThan(0);
      secrets.push(...tokens);

      const attempts = JSON.stringify(
        await rows("SELECT a.calls, a.error FROM shop_write_back_attempts a JOIN shop_write_backs w ON w.id = a.write_back_id WHERE w.account_id = ?", creds.accountId),
      );
      expect(attempts).toContain("3SSHOPWARE");
      const everything = { answers: answers.join("\n"), pages: pages.join("\n"), attempts, logs: logged.join("\n") };
      for (const secret of secrets) for (const [where, text] of Object.entries(everything)) expect(text.includes(secret), `${secret} in ${where}`).toBe(false);
    } finally {
      spies.forEach((s) => s.mockRestore());
    }
  });
});
