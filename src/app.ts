// createApp(): middleware, routers, the one error handler, 404 and 405.
import { OpenAPIHono } from "@hono/zod-openapi";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { accountRouter } from "./accounts/accounts.routes";
import { apiKeysRouter } from "./accounts/api-keys.routes";
import { adminRouter } from "./admin/admin.routes";
import { archiveAdminRouter } from "./archive/archive.routes";
import { pipelineAdminRouter } from "./admin/pipeline.routes";
import { secretsAdminRouter } from "./admin/secrets.routes";
import { feedsRouter, isFeedUpload } from "./catalogue/feeds.routes";
import { productsRouter } from "./catalogue/products.routes";
import type { AppEnv } from "./env";
import { publishEventsAfterWrites } from "./events/notify.middleware";
import { documentEvents } from "./events/events.openapi";
import { webhooksRouter } from "./events/webhooks.routes";
import { shopConnectionsRouter } from "./shops/connections.routes";
import { shopifyWebhooksRouter } from "./shops/shopify-webhooks.routes";
import { writeBacksRouter } from "./shops/write-backs.routes";
import { stockSyncsRouter } from "./shops/stock/stock-syncs.routes";
import { withOutboundPolicy } from "./lib/outbound-address";
import { ApiError, INTERNAL_ERROR_BODY, isAccountMoving, isOrderIdsExhausted, MAX_BODY_BYTES, ORDER_IDS_EXHAUSTED_BODY, PAYLOAD_TOO_LARGE_BODY, STATUS_MESSAGES } from "./lib/errors";
import { decodeJsonBody, emptyBodyIsNoBody, unsupportedMediaType } from "./lib/request-body";
import { documentErrors } from "./lib/router";
import { adminAuth, apiKeyAuth } from "./middleware/auth";
import { requestContext } from "./middleware/request-id";
import { forwardingRouter } from "./forwarding/forwarding.routes";
import { documentSupplierMessages, supplierApiRouter } from "./forwarding/supplier-api.routes";
import { ordersRouter } from "./orders/orders.routes";
import { bulkRouter } from "./orders/bulk.routes";
import { cancellationsRouter } from "./orders/cancellations.routes";
import { routingRouter } from "./routing/routing.routes";
import { returnsRouter } from "./returns/returns.routes";
import { returnSettingsRouter } from "./returns/settings.routes";
import { supplierReturnsRouter } from "./returns/supplier-returns.routes";
import { rulesRouter } from "./routing/rules.routes";
import { suppliersRouter } from "./suppliers/suppliers.routes";
import { x12Router } from "./suppliers/x12.routes";
import { mountConsole } from "./console/app";
import { areaOfPath } from "./console/areas";
import { consoleBookmarkCookie } from "./console/cookies";
import { renderNotFound } from "./console/errors";

// What the /docs page's Authorize dialog says about each credential: where it comes from.
const SECURITY_SCHEMES = {
  ApiKey: {
    type: "apiKey",
    in: "header",
    name: "api-key",
    description:
      "The account's API key (oik_…), sent as the api-key header with account-id beside it. Locally, the first `npm start` " +
      "creates a demo account and prints its api-key and account-id in its banner (kept in .demo-credentials.json). " +
      "Otherwise an operator issues keys: POST /admin/v1/accounts/{id}/api-keys, or `npm run admin -- keys:create <account id>`; " +
      "a key is shown once.",
  },
  AccountId: {
    type: "apiKey",
    in: "header",
    name: "account-id",
    description:
      "The number of the account the api-key belongs to, sent as the account-id header: printed beside the demo key by " +
      "`npm start` (and in .demo-credentials.json), or the id the operator's POST /admin/v1/accounts answered.",
  },
  AdminToken: {
    type: "http",
    scheme: "bearer",
    description:
      "The operator's token, sent as Authorization: Bearer <token>: the Worker secret ADMIN_TOKEN (`npx wrangler secret put " +
      "ADMIN_TOKEN`). Locally `npm start` writes a random one into .dev.vars. Without it the admin API answers 404.",
  },
  SupplierKey: {
    type: "http",
    scheme: "bearer",
    description:
      "A supplier's own key (osk_…), sent as Authorization: Bearer <key>: the shop issues it with POST " +
      "/api/v1/suppliers/{id}/keys (shown once). It reaches only that supplier's orders and lines.",
  },
} as const;

const API_DESCRIPTION = [
  "Orders from webshops, routed to suppliers, with a status log per line.",
  "",
  "Authorize first: api-key and account-id for /api/v1 (npm start prints a demo pair), the admin token for /admin/v1, a supplier key for /api/v1/supplier.",
  "Every example here runs as is against a fresh account, except the ids it names: create the supplier, rule, order or feed first and put in their ids.",
  "",
  "Errors are JSON: {message, error} where error says what to do, or for 422 {message: \"Errors\", errors: {field: [messages]}} naming every failing field " +
    "(an unknown value of a listed parameter names the allowed values). An empty body is no body: where the body is optional the request goes on " +
    "without it, where it is required the 422 names the missing fields. A wrong method on an existing path is a 405 with Allow; a fixed path such as " +
    "/api/v1/routing-rules/explain is never read as an id.",
  "",
  "Reads may come from a nearby read replica. Every answer carries an x-d1-bookmark header; send it back as a request header " +
    "(x-d1-bookmark) and that request reads at least what you had seen, your own writes included. Credentials are always checked " +
    "at the primary: a revoked key is refused at once.",
].join("\n");

export function createApp() {
  // strict: false serves /api/v1/orders/ as /api/v1/orders, as Laravel's router does.
  const app = new OpenAPIHono<AppEnv>({ strict: false });

  // Where connections may point (src/lib/outbound-address.ts): the schemas read this request's policy.
  app.use("*", (c, next) => withOutboundPolicy(c.env, next));
  app.use("*", requestContext(consoleBookmarkCookie));
  // Hono hands only Error instances to onError; anything else thrown would escape to the
  // runtime's own (non-JSON) 500.
  app.use("*", async (_c, next) => {
    try {
      await next();
    } catch (err) {
      throw err instanceof Error ? err : new Error(`Non-Error thrown: ${String(err)}`);
    }
  });
  const defaultBodyLimit = bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError(413, PAYLOAD_TOO_LARGE_BODY.message, { error: PAYLOAD_TOO_LARGE_BODY.error });
    },
  });
  // Feed uploads stream their body through a parser with its own, larger limit. The browser face
  // runs the same two in its own middleware (src/console/app.tsx), so that a body too large is a page.
  const ownBody = (c: { req: { method: string; path: string } }) => isFeedUpload(c.req.method, c.req.path) || areaOfPath(c.req.path) !== undefined;
  app.use("*", (c, next) => (ownBody(c) ? next() : defaultBodyLimit(c, next)));
  // An empty body is no body, whatever its Content-Type says (feed uploads report an empty file themselves).
  app.use("*", (c, next) => (ownBody(c) ? next() : emptyBodyIsNoBody(c, next)));

  // The supplier API has its own credentials (a supplier key, or a signature on callbacks).
  // "/api/v1/*" matches "/api/v1" itself too: one use() authenticates every path exactly once.
  const supplierPaths = /^\/api\/v1\/(supplier|supplier-callbacks)(\/|$)/;
  app.use("/api/v1/*", (c, next) => (supplierPaths.test(c.req.path) ? next() : apiKeyAuth(c, next)));
  app.use("/admin/v1/*", adminAuth);
  app.use("/api/v1/*", publishEventsAfterWrites);
  // A fixed path is never an id: GET /api/v1/routing-rules/explain is that route's 405, not rule 'explain'.
  app.use("*", async (c, next) => {
    const methods = staticRouteMethods(app, c.req.path);
    if (methods && !methods.includes(c.req.method === "HEAD" ? "GET" : c.req.method)) return c.notFound();
    await next();
  });
  // A JSON body is decoded strictly in its declared charset, after the shop's and the operator's credentials
  // (a supplier key or a callback's signature is checked by its router, after this); feed files decode themselves.
  for (const path of ["/api/v1/*", "/admin/v1/*"]) {
    app.use(path, (c, next) => (isFeedUpload(c.req.method, c.req.path) ? next() : decodeJsonBody(c, next)));
  }

  app.route("/api/v1", accountRouter);
  app.route("/api/v1", apiKeysRouter);
  app.route("/api/v1", ordersRouter);
  app.route("/api/v1", bulkRouter);
  app.route("/api/v1", productsRouter);
  app.route("/api/v1", suppliersRouter);
  app.route("/api/v1", x12Router);
  app.route("/api/v1", rulesRouter);
  app.route("/api/v1", routingRouter);
  app.route("/api/v1", forwardingRouter);
  app.route("/api/v1", cancellationsRouter);
  app.route("/api/v1", writeBacksRouter);
  app.route("/api/v1", supplierApiRouter);
  app.route("/api/v1", returnsRouter);
  app.route("/api/v1", returnSettingsRouter);
  app.route("/api/v1", supplierReturnsRouter);
  app.route("/api/v1", feedsRouter);
  app.route("/api/v1", webhooksRouter);
  app.route("/api/v1", shopConnectionsRouter);
  app.route("/api/v1", stockSyncsRouter);
  app.route("/", shopifyWebhooksRouter);
  app.route("/admin/v1", adminRouter);
  app.route("/admin/v1", pipelineAdminRouter);
  app.route("/admin/v1", secretsAdminRouter);
  app.route("/admin/v1", archiveAdminRouter);

  // The events the shop's webhook subscriptions receive, and the messages webhook suppliers receive, as the document's webhooks.
  documentEvents(app);
  documentSupplierMessages(app);
  // Every route's error responses, after all routers are mounted: 415 on bodies, 400 and 413
  // where the app reads the body (not the streamed feed uploads), an example for every error.
  documentErrors(app.openAPIRegistry, isFeedUpload);
  for (const [name, scheme] of Object.entries(SECURITY_SCHEMES)) app.openAPIRegistry.registerComponent("securitySchemes", name, scheme);
  app.doc31("/openapi.json", {
    openapi: "3.1.0",
    info: { title: "Order Intake and Catalogue API", version: "1.0.0", description: API_DESCRIPTION },
  });

  // The browser face: /console (shop), /supplier (portal), /operator (src/console).
  mountConsole(app);

  // A browser at the root is sent to the console's sign-in; an API client learns where things are.
  app.get("/", (c) => {
    c.header("Vary", "Accept");
    if (/\btext\/html\b/i.test(c.req.header("accept") ?? "")) return c.redirect("/console", 302);
    return c.json({ message: "Order intake API", api: "/api/v1", docs: "/docs", openapi: "/openapi.json", console: "/console" }, 200);
  });

  app.get("/health", (c) => c.json({ status: "ok" }));
  // Static assets answer /docs/* before the Worker runs; these routes cover /docs itself and any
  // setup where the Worker is called first (tests, run_worker_first). "/docs/*" matches "/docs" too,
  // and the asset router redirects it to "/docs/".
  app.get("/docs/*", (c) => c.env.ASSETS.fetch(c.req.raw));

  app.notFound((c) => {
    // The console's own 404 page (its area's middleware has run, so the page layout is set).
    if (areaOfPath(c.req.path)) return renderNotFound(c);
    const allowed = allowedMethods(app, c.req.path).filter((m) => m !== c.req.method);
    if (allowed.length > 0) {
      return c.json(
        { message: "Method Not Allowed", error: `The ${c.req.method} method is not supported for this route. Supported: ${allowed.join(", ")}.` },
        405,
        { Allow: allowed.join(", ") },
      );
    }
    return c.json({ message: "Not Found", error: `The route ${c.req.method} ${c.req.path} does not exist.` }, 404);
  });

  app.onError((err, c) => {
    if (err instanceof ApiError) return c.json(err.body, err.status, err.headers);
    if (isAccountMoving(err)) {
      const moving = ApiError.accountMoving();
      return c.json(moving.body, moving.status, moving.headers);
    }
    if (isOrderIdsExhausted(err)) {
      console.error(JSON.stringify({ level: "error", requestId: c.get("requestId"), path: c.req.path, shard: c.get("shard"), error: String(err) }));
      return c.json(ORDER_IDS_EXHAUSTED_BODY, 503);
    }
    // @hono/zod-openapi's body gate: name what this route takes instead of repeating the status.
    if (err instanceof HTTPException && err.status === 415) {
      const e = unsupportedMediaType(acceptedBodyTypes(app, c.req.method, c.req.path));
      return c.json(e.body, e.status);
    }
    if (err instanceof HTTPException) {
      const status = err.status;
      const message = STATUS_MESSAGES[status] ?? "Error";
      return c.json({ message, error: err.message || message }, status);
    }
    console.error(JSON.stringify({ level: "error", requestId: c.get("requestId"), path: c.req.path, error: String(err), stack: err instanceof Error ? err.stack : undefined }));
    return c.json(INTERNAL_ERROR_BODY, 500);
  });

  return app;
}

type BodyTypes = { method: string; regex: RegExp; types: string[] };
const bodyTypes = new WeakMap<object, BodyTypes[]>();

/** The request body types the OpenAPI document declares for a route (JSON when it declares none). */
function acceptedBodyTypes(app: OpenAPIHono<AppEnv>, method: string, path: string): string[] {
  let list = bodyTypes.get(app);
  if (!list) {
    list = app.openAPIRegistry.definitions.flatMap((d) =>
      d.type === "route" && d.route.request?.body
        ? [{
            method: d.route.method.toUpperCase(),
            regex: new RegExp(`^${d.route.path.replace(/\{[^/]+\}/g, "[^/]+")}/?$`),
            types: Object.keys(d.route.request.body.content),
          }]
        : [],
    );
    bodyTypes.set(app, list);
  }
  return list.find((r) => r.method === method && r.regex.test(path))?.types ?? ["application/json"];
}

type RouteTable = { fixed: Map<string, string[]>; patterns: { method: string; regex: RegExp }[] };
const tables = new WeakMap<object, RouteTable>();
const withoutTrailingSlash = (path: string) => (path.length > 1 ? path.replace(/\/+$/, "") : path);

function routeTable(app: OpenAPIHono<AppEnv>): RouteTable {
  let table = tables.get(app);
  if (!table) {
    table = { fixed: new Map(), patterns: [] };
    for (const r of app.routes) {
      if (r.method === "ALL") continue;
      if (/[:*]/.test(r.path)) {
        table.patterns.push({ method: r.method, regex: new RegExp(`^${r.path.replace(/\/$/, "").replace(/:[^/]+/g, "[^/]+").replace(/\*/g, ".*")}/?$`) });
      } else {
        const key = withoutTrailingSlash(r.path);
        table.fixed.set(key, [...new Set([...(table.fixed.get(key) ?? []), r.method])]);
      }
    }
    tables.set(app, table);
  }
  return table;
}

/** The methods of the route whose path is exactly this one (no parameter), if there is one. */
function staticRouteMethods(app: OpenAPIHono<AppEnv>, path: string): string[] | undefined {
  return routeTable(app).fixed.get(withoutTrailingSlash(path));
}

/**
 * Methods registered for a path, so an existing path with the wrong method answers 405, not 404.
 * A fixed path answers with its own methods only: a parameter never stands for a fixed segment.
 */
function allowedMethods(app: OpenAPIHono<AppEnv>, path: string): string[] {
  const fixed = staticRouteMethods(app, path);
  if (fixed) return fixed;
  return [...new Set(routeTable(app).patterns.filter((p) => p.regex.test(path)).map((p) => p.method))];
}
