// Stand-in shops at the network edge: one real HTTP server on loopback serving any number of shops
// of the four platforms, each written from its platform's published REST documentation in a file
// beside this one (woocommerce.ts, shopware.ts, magento.ts, prestashop.ts). A test creates its own
// shop (its orders, its credentials), points a shop connection at the shop's base_url, and reads
// back what the shop received and what it now holds. Runs in Node (vitest's globalSetup): the
// Worker under test reaches it with a real fetch.
//
//   POST /__shops                 {platform, seed}  -> {id, base_url, credentials}
//   GET  /__shops/<id>            -> {platform, state, received: [...requests, oldest first]}
//   POST /__shops/<id>/faults     {method?, path?, sent?, status?, body?, headers?, hang?, hangAfterApplying?, delayMs?, times?}
//                                 the next `times` (default 1) requests matching method and path (a
//                                 regular expression over the path after the shop's prefix; `sent`, one
//                                 over the request's body: one GraphQL mutation among its queries) answer
//                                 `status` with `body`, or never answer (`hang`), or are applied and
//                                 then never answered (`hangAfterApplying`: the write happened, the
//                                 client saw a timeout), or applied and answered after `delayMs`
//                                 (a slow shop), or are held (`hold`) until released
//   POST /__shops/<id>/held       waits until a request is held, then {path, abandoned}
//   POST /__shops/<id>/release    answers the held requests as the shop would (those still connected),
//                                 -> {held: [{path, abandoned}]}: whether the client had given up first
//   any  /s/<id>/...              the shop's own API
import http from "node:http";
import { randomBytes } from "node:crypto";

export type StandInRequest = {
  method: string;
  /** The path after the shop's prefix, without the query, e.g. /wp-json/wc/v3/orders/12. */
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: string;
};

export type StandInReply = { status: number; body?: unknown; headers?: Record<string, string> };

export type StandInShop<State = unknown> = {
  id: string;
  platform: string;
  credentials: Record<string, string>;
  state: State;
  received: RecordedRequest[];
};

/** A request as recorded (and as GET /__shops/<id> returns it). */
export type RecordedRequest = Omit<StandInRequest, "query"> & { query: Record<string, string>; at: number; answered: number | null };

/** A platform: how a shop is seeded, and how it answers its API. */
export type StandInPlatform<State = unknown> = {
  name: string;
  create(seed: unknown): { credentials: Record<string, string>; state: State };
  handle(shop: StandInShop<State>, req: StandInRequest): StandInReply | Promise<StandInReply>;
};

type Fault = { method?: string; path?: string; sent?: string; status?: number; body?: unknown; headers?: Record<string, string>; hang?: boolean; hangAfterApplying?: boolean; hold?: boolean; delayMs?: number; times: number };

/** A request held by a `hold` fault: answered when the test releases it; `abandoned` once the client closed the connection first. */
type Held = { path: string; abandoned: boolean; answer: () => Promise<void> };

export async function startStandIns(platforms: StandInPlatform[]): Promise<{ url: string; close: () => Promise<void> }> {
  const byName = new Map(platforms.map((p) => [p.name, p]));
  const shops = new Map<string, StandInShop & { faults: Fault[]; held: Held[]; waiting: (() => void)[] }>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      void (async () => {
        const url = new URL(req.url ?? "/", "http://stand-in");
        const body = Buffer.concat(chunks).toString("utf8");
        const send = (reply: StandInReply) => {
          const isText = typeof reply.body === "string";
          const headers = { "content-type": isText ? "text/plain; charset=utf-8" : "application/json; charset=utf-8", ...reply.headers };
          res.writeHead(reply.status, headers);
          res.end(reply.body === undefined ? "" : isText ? (reply.body as string) : JSON.stringify(reply.body));
        };
        const parts = url.pathname.split("/").filter(Boolean);
        if (parts[0] === "__shops") {
          if (req.method === "POST" && parts.length === 1) {
            const { platform, seed } = JSON.parse(body || "{}") as { platform: string; seed?: unknown };
            const p = byName.get(platform);
            if (!p) return send({ status: 400, body: { error: `no stand-in for ${platform}` } });
            const id = randomBytes(6).toString("hex");
            const created = p.create(seed ?? {});
            shops.set(id, { id, platform, ...created, received: [], faults: [], held: [], waiting: [] });
            return send({ status: 201, body: { id, base_url: `http://127.0.0.1:${port}/s/${id}`, credentials: created.credentials } });
          }
          const shop = shops.get(parts[1] ?? "");
          if (!shop) return send({ status: 404, body: { error: "no such stand-in shop" } });
          if (req.method === "GET" && parts.length === 2) return send({ status: 200, body: { platform: shop.platform, state: shop.state, received: shop.received } });
          if (req.method === "POST" && parts[2] === "faults") {
            const fault = JSON.parse(body) as Omit<Fault, "times"> & { times?: number };
            shop.faults.push({ ...fault, times: fault.times ?? 1 });
            return send({ status: 204 });
          }
          if (req.method === "POST" && parts[2] === "held") {
            if (shop.held.length === 0) await new Promise<void>((resolve) => shop.waiting.push(resolve));
            const first = shop.held[0];
            return send({ status: 200, body: { path: first.path, abandoned: first.abandoned } });
          }
          if (req.method === "POST" && parts[2] === "release") {
            const released = shop.held.splice(0);
            const report = released.map((h) => ({ path: h.path, abandoned: h.abandoned }));
            await Promise.all(released.map((h) => h.answer()));
            return send({ status: 200, body: { held: report } });
          }
          return send({ status: 404, body: { error: "unknown stand-in admin path" } });
        }
        if (parts[0] !== "s") return send({ status: 404, body: { error: "not a stand-in shop path" } });
        const shop = shops.get(parts[1] ?? "");
        if (!shop) return send({ status: 404, body: { error: "no such shop" } });
        const path = "/" + parts.slice(2).join("/");
        const headers: Record<string, string> = {};
        for (const [k, v] of Object.entries(req.headers)) headers[k] = Array.isArray(v) ? v.join(", ") : String(v);
        const request: StandInRequest = { method: req.method ?? "GET", path, query: url.searchParams, headers, body };
        const record: RecordedRequest = { ...request, query: Object.fromEntries(url.searchParams.entries()), at: Date.now(), answered: null };
        shop.received.push(record);
        const fault = shop.faults.find((f) => f.times > 0 && (!f.method || f.method === request.method) && (!f.path || new RegExp(f.path).test(path)) && (!f.sent || new RegExp(f.sent).test(body)));
        if (fault) fault.times--;
        if (fault?.hang) return; // never answers: the caller's time box fires
        if (fault?.hold) {
          // Answered as the shop would once the test releases it; the test learns whether the client gave up first.
          const held: Held = {
            path,
            abandoned: false,
            answer: async () => {
              if (held.abandoned) return;
              const reply = await byName.get(shop.platform)!.handle(shop, request);
              record.answered = reply.status;
              send(reply);
            },
          };
          res.on("close", () => {
            if (!res.writableEnded) held.abandoned = true;
          });
          shop.held.push(held);
          for (const wake of shop.waiting.splice(0)) wake();
          return;
        }
        if (fault?.delayMs) await new Promise((r) => setTimeout(r, fault.delayMs));
        const reply = fault && fault.status ? { status: fault.status, body: fault.body, headers: fault.headers } : await byName.get(shop.platform)!.handle(shop, request);
        if (fault?.hangAfterApplying) return; // applied, never answered
        record.answered = reply.status;
        send(reply);
      })().catch((error) => {
        res.writeHead(500, { "content-type": "application/json" });
        res.end(JSON.stringify({ error: `stand-in failed: ${String(error)}` }));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
