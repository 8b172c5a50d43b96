// A Shopify order, as its orders/* webhooks carry it (the REST order resource,
// shopify.dev/docs/api/admin-rest/latest/resources/order), mapped to the create-order request a
// shop plugin sends: the order's numeric id is its external_id, its name (#1001) is kept in
// custom.shopify_name, each line's product id is the variant's numeric id (the line item's own id
// for a custom item without a variant), its SKU the line's reference. The result is checked by the
// same schema as the API's orders, so what Shopify sends is held to the same rules.

type Address = { first_name?: string | null; last_name?: string | null; name?: string | null; company?: string | null; address1?: string | null; address2?: string | null; city?: string | null; zip?: string | null; province?: string | null; country_code?: string | null; phone?: string | null };
type Line = { id?: number; variant_id?: number | null; sku?: string | null; title?: string | null; name?: string | null; quantity?: number; price?: string | number };
export type ShopifyOrderJson = {
  id?: unknown;
  name?: string;
  email?: string | null;
  contact_email?: string | null;
  test?: boolean;
  currency?: string;
  total_price?: string | number;
  shipping_address?: Address | null;
  shipping_lines?: { title?: string; price?: string | number }[];
  line_items?: Line[];
  note?: string | null;
};

const text = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? v : undefined);
const amount = (v: unknown) => (typeof v === "string" && v.trim() !== "" ? Number(v) : typeof v === "number" ? v : undefined);

/** Shopify's numeric order id, or null when the body carries none (then it is no order). */
export function shopifyOrderId(body: ShopifyOrderJson): string | null {
  return typeof body.id === "number" && Number.isSafeInteger(body.id) && body.id > 0 ? String(body.id) : typeof body.id === "string" && /^\d{1,20}$/.test(body.id) ? body.id : null;
}

/** The create-order request for this Shopify order (unchecked: the orders' schema checks it). */
export function orderRequestOf(body: ShopifyOrderJson, connection: { id: number; name: string }): Record<string, unknown> {
  const a = body.shipping_address ?? undefined;
  const shippingCost = (body.shipping_lines ?? []).reduce((sum, l) => sum + (amount(l.price) ?? 0), 0);
  return {
    external_id: shopifyOrderId(body) ?? undefined,
    source: connection.name,
    test: body.test === true,
    total: amount(body.total_price),
    currency: text(body.currency),
    email: text(body.email) ?? text(body.contact_email),
    shipping: body.shipping_lines?.length ? { name: text(body.shipping_lines[0].title), cost: shippingCost } : undefined,
    shipping_address: a && {
      first_name: text(a.first_name) ?? text(a.name),
      last_name: text(a.last_name),
      company_name: text(a.company),
      address1: text(a.address1),
      address2: text(a.address2),
      postcode: text(a.zip),
      city: text(a.city),
      state: text(a.province),
      country: text(a.country_code),
      phone: text(a.phone),
    },
    products: (body.line_items ?? []).map((l) => ({
      external_id: l.variant_id ? String(l.variant_id) : l.id !== undefined ? String(l.id) : undefined,
      reference: text(l.sku),
      name: text(l.title) ?? text(l.name),
      quantity: l.quantity,
      price: amount(l.price),
    })),
    custom: { shopify_name: text(body.name) ?? null, shopify_connection_id: connection.id },
  };
}
