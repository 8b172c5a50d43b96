// A failed write into a shop, said the way a shop owner thinks about it ("Your shop has no order
// 5002: …") rather than as the HTTP exchange. The sentences are common to every platform; what
// differs (the platform's name, its credentials and where they are made, what it calls an order
// number, how its error bodies carry their message, what each of its paths is about) each adapter
// gives in its PlatformWords, so that nothing here knows a platform by name.
import type { ShopErrorKind } from "./http";

/** A failure's facts as the write-back kept them (shop_write_backs.last_failure). */
export type ShopFailure = {
  kind: ShopErrorKind;
  /** The HTTP status of the refusal; null when none came (timeout, unreachable) or the adapter found the problem itself. */
  status: number | null;
  /** The last call made, "GET /wp-json/wc/v3/orders/5002"; null when none was made. */
  call: string | null;
  /** The shop's answer to that call (at most ANSWER_CHARS characters), or why none came. */
  answer: string | null;
  /** The failure as recorded (last_error): the words of last resort. */
  message: string;
};

/** What a call was about, as the adapter reads its own paths. `id`: the product's SKU or id when the path carries it. */
export type FailureSubject = { what: "order" | "product" | "tracking" | "shipment" | "note" | "status" | "other"; id?: string };

export type PlatformWords = {
  /** "WooCommerce" */
  label: string;
  /** The credentials by name: "consumer key and secret". */
  credentials: string;
  /** Where a shop owner makes or checks them: "WooCommerce > Settings > Advanced > REST API". */
  credentialsWhere: string;
  /** How a permission is given, for a 403: "give the key Read/Write permission there". */
  grant: string;
  /** The shop's order as its owner knows it: "order 5002", "order number 10023". */
  orderName(externalId: string): string;
  /** What a call was about (and, for a 404, whether the platform said an extension or route is missing). */
  subjectOf(call: string, answer: string | null): FailureSubject;
  /** The platform's own message in an error answer, or null when it has none we can read. */
  said(answer: string): string | null;
  /** A 403's missing permission in the platform's own words, when its answer names it (Shopware's privileges). */
  missingPermission?(answer: string): string | null;
};

const what = (s: FailureSubject) => (s.what === "other" ? "" : ` ${s.what === "status" ? "the order's status" : s.what === "tracking" ? "a tracking number" : `the ${s.what}`}`);

/** The common shape of the platform's error answers: a `message` (WooCommerce, Magento) or `errors[].detail` (Shopware). */
export function messageIn(answer: string): string | null {
  try {
    const body = JSON.parse(answer) as { message?: unknown; errors?: { detail?: unknown; title?: unknown; message?: unknown }[]; parameters?: unknown };
    if (typeof body?.message === "string" && body.message) {
      // Magento's "%1" placeholders, filled from its parameters.
      const params = body.parameters;
      return body.message.replace(/%(\w+)/g, (m, k: string) => {
        const v = Array.isArray(params) ? params[Number(k) - 1] : params && typeof params === "object" ? (params as Record<string, unknown>)[k] : undefined;
        return typeof v === "string" || typeof v === "number" ? String(v) : m;
      });
    }
    const first = Array.isArray(body?.errors) ? body.errors[0] : undefined;
    for (const v of [first?.detail, first?.message, first?.title]) if (typeof v === "string" && v) return v;
  } catch {
    // not JSON
  }
  const xml = [...answer.matchAll(/<message>(?:<!\[CDATA\[)?([\s\S]*?)(?:\]\]>)?<\/message>/g)].map((m) => m[1]!.trim()).filter(Boolean);
  return xml.length ? xml.join("; ") : null;
}

/** A failure in words, for a shop owner: what it means and what to do about it. */
export function explainShopFailure(words: PlatformWords, failure: ShopFailure, order: { externalId: string }): string {
  const subject = failure.call ? words.subjectOf(failure.call, failure.answer) : { what: "other" as const };
  const method = failure.call?.split(" ")[0] ?? "GET";
  const reading = method === "GET" || method === "HEAD" || (method === "POST" && /\/search\b/.test(failure.call ?? ""));
  const said = failure.answer && failure.status !== null ? words.said(failure.answer) : null;
  switch (failure.kind) {
    case "auth": {
      if (failure.status === 403) {
        const missing = failure.answer ? words.missingPermission?.(failure.answer) : null;
        const permission = missing ?? `${reading ? "read" : "change"}${what(subject) || " this"}`;
        return `${words.label} accepted our ${words.credentials}, but they lack a permission: they may not ${permission}. In ${words.credentialsWhere}, ${words.grant}.`;
      }
      return `${words.label} refused our ${words.credentials}${said ? ` ("${said}")` : ""}: they were changed, revoked or mistyped. Enter them again on the shop connection (they are made in ${words.credentialsWhere}).`;
    }
    case "not_found":
      if (subject.what === "order") return `Your shop has no ${words.orderName(order.externalId)}: was it deleted, or did the plugin send another number?`;
      if (subject.what === "product")
        return `Your shop has no product ${subject.id ? `${subject.id} ` : ""}any more${said ? ` ("${said}")` : ""}: was it deleted, or its SKU changed?`;
      // An extension or route missing, or found missing by the adapter itself: its own words say it.
      if (failure.status === null || subject.what === "tracking" || subject.what === "other") return failure.message;
      return `${words.label} answered that it has no such thing (HTTP 404) when we asked for${what(subject)}${said ? `: "${said}"` : ""}.`;
    case "invalid":
      // Found by the adapter itself (an item the shop's order lacks, a delivery in the wrong state): already in words.
      if (failure.status === null) return failure.message;
      return `${words.label} refused what we wrote${what(subject) ? ` for${what(subject)}` : ""}: "${said ?? (failure.answer || `HTTP ${failure.status}`)}". Trying the same again will not help: fix it in the shop, then try again.`;
    case "rate_limited":
      return `${words.label} asked us to slow down (too many requests, HTTP 429). We try again by ourselves; nothing needs doing unless it lasts.`;
    case "server":
      return `Your shop had an error of its own (HTTP ${failure.status ?? "5xx"}) while we ${reading ? "read" : "wrote"}${what(subject) || " to it"}. Nothing is wrong with what we sent; we try again by ourselves. If it lasts, look at the shop's error log.`;
    case "timeout":
      return `Your shop did not answer in time${failure.answer ? ` (${failure.answer})` : ""}. It may be slow or overloaded; the next attempt looks in the shop first, so nothing is written twice.`;
    case "unreachable":
      return `We could not reach your shop: ${failure.answer ?? failure.message}. Is the shop online, and the address on the connection right?`;
    case "address":
      return failure.message;
    case "unexpected":
      return `${words.label} answered something we could not read: ${failure.message}`;
  }
}
