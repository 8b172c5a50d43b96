// The connection's own webhook subscriptions in Shopify (shopify.dev/docs/api/admin-graphql/latest/
// mutations/webhookSubscriptionCreate): ORDERS_CREATE and ORDERS_CANCELLED, pointing at this
// service's POST /shopify/webhooks/{connection_id}. Made on create and on every /test (what is
// missing is made again: a shop owner may have deleted one), removed when the connection is deleted
// or intake is turned off. Shopify signs what it sends with the app's API secret key, the secret the
// connection keeps (./verify.ts).
import type { ShopHttp } from "../http";
import type { Check } from "../platform";
import { gql, refusedBy, type ShopifyConn, type UserError } from "./client";

export const TOPICS = ["ORDERS_CREATE", "ORDERS_CANCELLED"] as const;

/**
 * Where Shopify delivers this connection's webhooks. The account rides along in the query: the
 * address must reach the account's shard before anything is read, and the signature, checked with
 * the connection's own secret, is what makes a delivery trusted (docs/shops/shopify.md).
 */
export const callbackUrl = (origin: string, conn: { id: number }, accountId: number) => `${origin.replace(/\/$/, "")}/shopify/webhooks/${conn.id}?account=${accountId}`;

type Sub = { id: string; topic: string; uri: string };
const LIST = `query Webhooks($topics: [WebhookSubscriptionTopic!]) { webhookSubscriptions(first: 100, topics: $topics) { nodes { id topic uri } } }`;
const CREATE = `mutation Subscribe($topic: WebhookSubscriptionTopic!, $sub: WebhookSubscriptionInput!) {
  webhookSubscriptionCreate(topic: $topic, webhookSubscription: $sub) { webhookSubscription { id } userErrors { field message } }
}`;
const DELETE = `mutation Unsubscribe($id: ID!) { webhookSubscriptionDelete(id: $id) { deletedWebhookSubscriptionId userErrors { field message } } }`;

/** Ours: those pointing at this connection's address (the shop may have other apps' and its own). */
async function ours(conn: ShopifyConn, http: ShopHttp): Promise<Sub[]> {
  const { data } = await gql<{ webhookSubscriptions: { nodes: Sub[] } }>(conn, http, LIST, { topics: [...TOPICS] });
  const mine = `/shopify/webhooks/${conn.id}?`;
  return (data.webhookSubscriptions?.nodes ?? []).filter((s) => s.uri.includes(mine));
}

/** Makes what is missing (or, with intake off, removes ours); says in words what is there now. Live calls: this is the connection's set-up, not a write-back. */
export async function ensureWebhooks(conn: ShopifyConn, http: ShopHttp, uri: string): Promise<Check> {
  const existing = await ours(conn, http);
  if (!conn.settings.intake) {
    for (const s of existing) await gql(conn, http, DELETE, { id: s.id }, { mutation: true });
    return { name: "Webhooks", ok: true, message: "Intake is off (settings.intake false): no order webhooks are subscribed; Shopify's orders are not taken in." };
  }
  const made: string[] = [];
  for (const topic of TOPICS) {
    // An address of an older base (another origin) for the same connection is replaced.
    for (const stale of existing.filter((s) => s.topic === topic && s.uri !== uri)) await gql(conn, http, DELETE, { id: stale.id }, { mutation: true });
    if (existing.some((s) => s.topic === topic && s.uri === uri)) continue;
    const { data } = await gql<{ webhookSubscriptionCreate: { userErrors: UserError[] } }>(conn, http, CREATE, { topic, sub: { uri, format: "JSON" } }, { mutation: true });
    const refusal = refusedBy(`the ${topic} webhook subscription`, data.webhookSubscriptionCreate.userErrors);
    if (refusal) return { name: "Webhooks", ok: false, message: `${refusal.message}. Orders will not come in until it exists.` };
    made.push(topic);
  }
  const what = made.length ? `subscribed now to ${made.join(" and ")}` : `subscribed to ${TOPICS.join(" and ")}`;
  return { name: "Webhooks", ok: true, message: `Shopify sends new and cancelled orders to ${uri.replace(/\?.*$/, "")} (${what}).` };
}

/** Removes the connection's subscriptions (on delete). */
export async function removeWebhooks(conn: ShopifyConn, http: ShopHttp): Promise<number> {
  const existing = await ours(conn, http);
  for (const s of existing) {
    const { data } = await gql<{ webhookSubscriptionDelete: { userErrors: UserError[] } }>(conn, http, DELETE, { id: s.id }, { mutation: true });
    const refusal = refusedBy("the webhook subscription's removal", data.webhookSubscriptionDelete.userErrors);
    if (refusal) throw refusal;
  }
  return existing.length;
}
