// Each platform's adapter says a failed write-back in a shop owner's words: what it means and what
// to do, from the failure's facts (kind, status, the call, the shop's answer) as the write-back
// keeps them. The same for a supplier's webhook and the shop's own webhook endpoint.
import { describe, expect, it } from "vitest";
import type { AttemptRecord } from "../../../src/db/schema";
import { explainDeliveryFailure } from "../../../src/events/delivery.service";
import { CHANNELS } from "../../../src/forwarding/channels";
import type { ShopFailure } from "../../../src/shops/platforms/explain";
import { platformFor } from "../../../src/shops/platforms/index";

const fail = (kind: ShopFailure["kind"], status: number | null, call: string | null, answer: string | null, message = "as recorded"): ShopFailure => ({ kind, status, call, answer, message });

describe("WooCommerce", () => {
  const explain = (f: ShopFailure) => platformFor("woocommerce").explainFailure(f, { externalId: "5002" });
  it("says each failure in words", () => {
    expect(explain(fail("not_found", 404, "GET /wp-json/wc/v3/orders/5002", '{"code":"woocommerce_rest_shop_order_invalid_id","message":"Invalid ID.","data":{"status":404}}'))).toBe(
      "Your shop has no order 5002: was it deleted, or did the plugin send another number?",
    );
    expect(explain(fail("auth", 401, "GET /wp-json/wc/v3/orders/5002", '{"code":"woocommerce_rest_authentication_error","message":"Consumer key is invalid."}'))).toBe(
      'WooCommerce refused our consumer key and secret ("Consumer key is invalid."): they were changed, revoked or mistyped. Enter them again on the shop connection (they are made in WooCommerce > Settings > Advanced > REST API).',
    );
    expect(explain(fail("auth", 403, "POST /wp-json/wc/v3/orders/5002/notes", '{"code":"woocommerce_rest_cannot_create","message":"Sorry, you are not allowed to create resources."}'))).toBe(
      "WooCommerce accepted our consumer key and secret, but they lack a permission: they may not change the note. In WooCommerce > Settings > Advanced > REST API, give the key Read/Write permission.",
    );
    expect(explain(fail("not_found", 404, "GET /wp-json/wc/v3/products/77", '{"code":"woocommerce_rest_product_invalid_id","message":"Invalid ID."}'))).toBe(
      'Your shop has no product 77 any more ("Invalid ID."): was it deleted, or its SKU changed?',
    );
    expect(explain(fail("invalid", 400, "PUT /wp-json/wc/v3/orders/5002", '{"code":"rest_invalid_param","message":"Invalid parameter(s): status"}'))).toBe(
      `WooCommerce refused what we wrote for the order's status: "Invalid parameter(s): status". Trying the same again will not help: fix it in the shop, then try again.`,
    );
    expect(explain(fail("rate_limited", 429, "GET /wp-json/wc/v3/orders/5002", ""))).toBe(
      "WooCommerce asked us to slow down (too many requests, HTTP 429). We try again by ourselves; nothing needs doing unless it lasts.",
    );
    expect(explain(fail("server", 502, "POST /wp-json/wc/v3/orders/5002/notes", "<html>Bad gateway</html>"))).toBe(
      "Your shop had an error of its own (HTTP 502) while we wrote the note. Nothing is wrong with what we sent; we try again by ourselves. If it lasts, look at the shop's error log.",
    );
    expect(explain(fail("timeout", null, "GET /wp-json/wc/v3/orders/5002", "shop.example did not answer within 10 s"))).toBe(
      "Your shop did not answer in time (shop.example did not answer within 10 s). It may be slow or overloaded; the next attempt looks in the shop first, so nothing is written twice.",
    );
    expect(explain(fail("unreachable", null, "GET /wp-json/wc/v3/orders/5002", "the host name shop.invalid does not resolve (DNS)"))).toBe(
      "We could not reach your shop: the host name shop.invalid does not resolve (DNS). Is the shop online, and the address on the connection right?",
    );
  });

  it("tells the tracking extension missing from the order missing", () => {
    const missing = "The Shipment Tracking extension is not installed in the shop";
    expect(explain(fail("not_found", 404, "POST /wp-json/wc-shipment-tracking/v3/orders/5002/shipment-trackings", '{"code":"rest_no_route","message":"No route"}', missing))).toBe(missing);
    expect(explain(fail("not_found", 404, "GET /wp-json/wc-shipment-tracking/v3/orders/5002/shipment-trackings", '{"code":"woocommerce_rest_shop_order_invalid_id"}'))).toBe(
      "Your shop has no order 5002: was it deleted, or did the plugin send another number?",
    );
  });
});

describe("Shopware", () => {
  const explain = (f: ShopFailure) => platformFor("shopware").explainFailure(f, { externalId: "10023" });
  it("says each failure in words, naming the privileges a 403 lacks", () => {
    // Found by searching: the search answered, with nothing in it.
    expect(explain(fail("not_found", null, "POST /api/search/order", '{"data":[]}'))).toBe("Your shop has no order number 10023: was it deleted, or did the plugin send another number?");
    expect(explain(fail("auth", 401, "POST /api/oauth/token", '{"errors":[{"code":"9","title":"Unauthorized","detail":"The client credentials are invalid."}]}'))).toBe(
      `Shopware refused our integration's access key ID and secret ("The client credentials are invalid."): they were changed, revoked or mistyped. Enter them again on the shop connection (they are made in Shopware's Settings > System > Integrations).`,
    );
    expect(
      explain(fail("auth", 403, "POST /api/_action/order_delivery/abc/state/ship", JSON.stringify({ errors: [{ code: "FRAMEWORK__MISSING_PRIVILEGE_ERROR", detail: '{"message":"Missing privilege","missingPrivileges":["order_delivery:update"]}' }] }))),
    ).toBe(
      "Shopware accepted our integration's access key ID and secret, but they lack a permission: they may not use the privilege order_delivery:update. In Shopware's Settings > System > Integrations, give the integration's role the permission (Settings > System > Users & permissions > Roles), or make the integration an administrator.",
    );
    expect(explain(fail("invalid", 400, "PATCH /api/order-delivery/abc", '{"errors":[{"detail":"This value is too long."}]}'))).toBe(
      `Shopware refused what we wrote for a tracking number: "This value is too long.". Trying the same again will not help: fix it in the shop, then try again.`,
    );
    expect(explain(fail("server", 503, "POST /api/search/order", ""))).toMatch(/^Your shop had an error of its own \(HTTP 503\) while we read the order\./);
  });
});

describe("Magento", () => {
  const explain = (f: ShopFailure) => platformFor("magento").explainFailure(f, { externalId: "000000123" });
  it("says each failure in words, its message's placeholders filled", () => {
    expect(explain(fail("not_found", null, "GET /rest/V1/orders?searchCriteria[filter_groups][0][filters][0][field]=increment_id", '{"items":[],"total_count":0}'))).toBe(
      "Your shop has no order #000000123: was it deleted, or did the plugin send another number?",
    );
    expect(explain(fail("invalid", 400, "POST /rest/V1/order/7/ship", '{"message":"Shipment Document Validation Error(s):\\nThe order does not allow a shipment to be created.","parameters":[]}'))).toBe(
      `Magento refused what we wrote for the shipment: "Shipment Document Validation Error(s):\nThe order does not allow a shipment to be created.". Trying the same again will not help: fix it in the shop, then try again.`,
    );
    expect(explain(fail("not_found", 404, "GET /rest/V1/stockItems/MUG-1", '{"message":"The Product with the \\"%1\\" SKU doesn\'t exist.","parameters":["MUG-1"]}'))).toBe(
      `Your shop has no product MUG-1 any more ("The Product with the "MUG-1" SKU doesn't exist."): was it deleted, or its SKU changed?`,
    );
    expect(explain(fail("auth", 401, "GET /rest/V1/orders/7", '{"message":"The consumer isn\'t authorized to access %resources.","parameters":{"resources":"Magento_Sales::actions_view"}}'))).toBe(
      `Magento refused our integration's access token ("The consumer isn't authorized to access Magento_Sales::actions_view."): they were changed, revoked or mistyped. Enter them again on the shop connection (they are made in Magento's System > Extensions > Integrations).`,
    );
  });
});

describe("PrestaShop", () => {
  const explain = (f: ShopFailure) => platformFor("prestashop").explainFailure(f, { externalId: "XKBKNABJK" });
  it("says each failure in words, reading its XML errors", () => {
    expect(explain(fail("not_found", null, "GET /api/orders?filter[reference]=[XKBKNABJK]&display=full&output_format=JSON", "[]"))).toBe(
      "Your shop has no order with reference XKBKNABJK: was it deleted, or did the plugin send another number?",
    );
    expect(explain(fail("auth", 401, "GET /api/orders", '<?xml version="1.0"?><prestashop><errors><error><code><![CDATA[17]]></code><message><![CDATA[Internal error. To see this error please display the PHP errors.]]></message></error></errors></prestashop>'))).toMatch(
      /^PrestaShop refused our webservice key \("Internal error\. To see this error please display the PHP errors\."\): they were changed/,
    );
    expect(explain(fail("auth", 403, "PUT /api/order_carriers/4?output_format=JSON", "<prestashop><errors><error><message><![CDATA[No permission for this resource]]></message></error></errors></prestashop>"))).toBe(
      "PrestaShop accepted our webservice key, but they lack a permission: they may not change a tracking number. In PrestaShop's Advanced Parameters > Webservice, tick the resource's methods for the key.",
    );
    expect(explain(fail("invalid", 400, "POST /api/order_histories?sendemail=1&output_format=JSON", '{"errors":[{"code":90,"message":"id_order_state is invalid"}]}'))).toBe(
      `PrestaShop refused what we wrote for the order's status: "id_order_state is invalid". Trying the same again will not help: fix it in the shop, then try again.`,
    );
  });
});

describe("a supplier's webhook and the shop's endpoint", () => {
  const record = (over: Partial<AttemptRecord>): AttemptRecord => ({
    attempt: 1, at: "2026-01-01T00:00:00.000000Z", channel: "webhook", to: "https://lampenlab.example/orders", lines: 1, outcome: "http_error", http_status: 500, response: "boom", duration_ms: 12, ...over,
  });
  const explain = CHANNELS.webhook.explainFailure!;
  it("says what the supplier's endpoint did", () => {
    expect(explain(record({}), "Lampenlab")).toBe(
      "Supplier Lampenlab's webhook refuses our deliveries (HTTP 500 Internal Server Error): its server has an error of its own. Ask the supplier to look at it, then send the lines again.",
    );
    expect(explain(record({ http_status: 404 }), "Lampenlab")).toBe(
      "Supplier Lampenlab's webhook refuses our deliveries (HTTP 404 Not Found): nothing takes orders at https://lampenlab.example/orders. Check the webhook URL with the supplier.",
    );
    expect(explain(record({ http_status: 401 }), "Lampenlab")).toMatch(/^Supplier Lampenlab's webhook refuses our deliveries \(HTTP 401 Unauthorized\): it does not accept our signature\./);
    expect(explain(record({ outcome: "timeout", http_status: null }), "Lampenlab")).toMatch(/^Supplier Lampenlab's webhook did not answer in time/);
    expect(explain(record({ outcome: "network_error", http_status: null }), "Lampenlab")).toMatch(/^Supplier Lampenlab's webhook could not be reached at https:\/\/lampenlab\.example\/orders/);
  });

  it("says what the shop's own endpoint did", () => {
    expect(explainDeliveryFailure("https://shop.example/hook", 500, "oops")).toMatch(/^Your webhook endpoint https:\/\/shop\.example\/hook refuses our deliveries \(HTTP 500\): it has an error of its own\./);
    expect(explainDeliveryFailure("https://shop.example/hook", null, "Timed out after 10000 ms")).toMatch(/did not answer in time/);
  });
});
