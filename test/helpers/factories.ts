// Self-seeding: every test makes its own account, so tests never share data or depend on order.
import { env } from "cloudflare:workers";
import { ADMIN, call, type Credentials } from "./http";

let counter = 0;
export const unique = (prefix = "x") => `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;

export async function createAccount(name = unique("shop")): Promise<Credentials & { name: string }> {
  const account = await call("POST", "/admin/v1/accounts", { headers: ADMIN, body: { name } });
  if (account.status !== 201) throw new Error(`account: ${account.status} ${account.text}`);
  const key = await call("POST", `/admin/v1/accounts/${account.json.id}/api-keys`, { headers: ADMIN, body: {} });
  if (key.status !== 201) throw new Error(`key: ${key.status} ${key.text}`);
  return { accountId: account.json.id, apiKey: key.json.api_key, name };
}

export function orderPayload(overrides: Record<string, unknown> = {}) {
  return {
    external_id: unique("ord"),
    source: "Test shop",
    total: 59.9,
    shipping: { name: "PostNL", description: "Standard", cost: 4.95, note: "Ring twice", delivery_date: "30-11-2026" },
    email: "jan@example.com",
    shipping_address: {
      first_name: "Jan",
      last_name: "Jansen",
      company_name: "Jansen BV",
      address1: "Damrak 1",
      address2: "3hoog",
      postcode: "1012LG",
      city: "Amsterdam",
      state: "Noord-Holland",
      country: "NL",
      phone: "0612345678",
    },
    products: [
      {
        external_id: "sku-1",
        ean13: "0012345678905",
        name: "Blue mug",
        reference: "MUG-BLUE",
        quantity: 2,
        stock_quantity: 10,
        price: 12.5,
        purchase_price: 6.25,
        image_url: "https://img.example.com/mug.png",
        brand: "Mugs Inc",
        category: "Kitchen",
        supplier: "MugSupplier",
        custom: { color: "blue" },
      },
    ],
    ...overrides,
  };
}

export async function createOrder(creds: Credentials, overrides: Record<string, unknown> = {}) {
  const payload = orderPayload(overrides);
  const res = await call("POST", "/api/v1/orders", { creds, body: payload });
  if (res.status !== 200) throw new Error(`order: ${res.status} ${res.text}`);
  return { payload, reference: String(res.json.reference) };
}

/** Direct row seeding for what has no public write API yet (suppliers, catalogue). */
export async function seedSupplier(accountId: number, name = unique("supplier")) {
  const now = new Date().toISOString();
  const row = await env.DB.prepare(
    "INSERT INTO suppliers (account_id, name, active, priority, created_at, updated_at) VALUES (?, ?, 1, 100, ?, ?) RETURNING id",
  )
    .bind(accountId, name, now, now)
    .first<{ id: number }>();
  return { id: row!.id, name };
}
