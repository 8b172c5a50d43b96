// The browser face: the shop console (/console), the supplier portal (/supplier) and the operator
// (/operator), as app.ts is the API's. Each area is its own router with the same middleware:
// security headers, the flash, the page layout, CSRF checks, sign-in, and a session for the rest.
// The pages themselves live beside each capability's API routes (src/orders/order.pages.tsx, ...).
import { Hono, type Context, type MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { jsxRenderer } from "hono/jsx-renderer";
import type { AppEnv } from "../env";
import { ApiError, MAX_BODY_BYTES, PAYLOAD_TOO_LARGE_BODY } from "../lib/errors";
import { emptyBodyIsNoBody } from "../lib/request-body";
import { Layout } from "../ui/layout";
import { publishEventsAfterWrites } from "../events/notify.middleware";
import { AREAS, type Area } from "./areas";
import { requireSession } from "./auth";
import { clearFlash, readFlash } from "./cookies";
import { originCheck, sessionToken } from "./csrf";
import { renderError } from "./errors";
import { signInPages } from "./sign-in.pages";
import { orderListPages } from "../orders/order-list.pages";
import { archivedOrderPages } from "../archive/archived-order.pages";
import { orderPages } from "../orders/order.pages";
import { orderActionPages } from "../orders/order-actions.pages";
import { cancellationPages } from "../orders/cancellations.pages";
import { supplierPortalPages } from "../forwarding/supplier-portal.pages";
import { supplierDispatchPages } from "../forwarding/supplier-dispatch.pages";
import { supplierCancellationPages } from "../forwarding/supplier-cancellations.pages";
import { supplierReturnPages } from "../returns/portal.pages";
import { operatorPages } from "../admin/admin.pages";
import { pipelinePages } from "../admin/pipeline.pages";
import { attentionPages } from "../attention/attention.pages";
import { routingPages } from "../routing/routing.pages";
import { lineActionPages } from "../routing/line-actions.pages";
import { apiKeysPages } from "../accounts/api-keys.pages";
import { settingsPages } from "../accounts/settings.pages";
import { suppliersPages } from "../suppliers/suppliers.pages";
import { webhooksPages } from "../events/webhooks.pages";
import { shopConnectionsPages } from "../shops/connections.pages";
import { stockSyncPages } from "../shops/stock/stock-syncs.pages";
import { writeBackPages } from "../shops/write-backs.pages";
import { rulesPages } from "../routing/rules.pages";
import { cataloguePages } from "../catalogue/catalogue.pages";
import { returnPages } from "../returns/returns.pages";
import { returnListPages } from "../returns/returns-list.pages";

declare module "hono" {
  interface ContextRenderer {
    (content: string | Promise<string>, props: { title: string }): Response | Promise<Response>;
  }
}

// Everything the pages load comes from the Worker's own assets; no inline script or style.
const CSP = [
  "default-src 'self'",
  "img-src 'self' data:",
  "style-src 'self'",
  "script-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const securityHeaders: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  c.header("Content-Security-Policy", CSP);
  c.header("X-Content-Type-Options", "nosniff");
  c.header("Referrer-Policy", "same-origin");
  c.header("X-Frame-Options", "DENY");
};

const flash: MiddlewareHandler<AppEnv> = async (c, next) => {
  c.set("flash", readFlash(c));
  await next();
  if (c.get("flashShown")) clearFlash(c);
};

const renderer = (area: Area) =>
  jsxRenderer<AppEnv>(({ children, title }, c: Context<AppEnv>) => {
    const session = c.get("session");
    const shownFlash = c.get("flash");
    if (shownFlash) c.set("flashShown", true);
    return (
      <Layout
        title={title ?? area.name}
        area={area.name}
        home={area.home}
        nav={session ? area.nav : []}
        path={c.req.path}
        flash={shownFlash}
        signedIn={session ? { label: session.label, csrfToken: session.csrfToken, signOutAction: `${area.path}/sign-out` } : undefined}
      >
        {children}
      </Layout>
    );
  });

/** The API's body limit, checked here (app.ts leaves the browser face out of its own, and of emptyBodyIsNoBody, which reads a streamed body) so that a form too large is a page. */
const formBodyLimit = bodyLimit({
  maxSize: MAX_BODY_BYTES,
  onError: () => {
    throw new ApiError(413, PAYLOAD_TOO_LARGE_BODY.message, { error: "What the form sent is larger than 1 MiB, more than the console takes: nothing was saved." });
  },
});

function area(a: Area, pages: Hono<AppEnv>[]) {
  const app = new Hono<AppEnv>({ strict: false });
  app.use("*", securityHeaders, flash, renderer(a), formBodyLimit, emptyBodyIsNoBody, originCheck);
  // Sign-in pages answer before the session check below runs (handlers run in the order added).
  app.route("/", signInPages(a));
  // Console writes publish the events they recorded at once, like API writes (src/events).
  app.use("*", requireSession(a), sessionToken, publishEventsAfterWrites);
  for (const p of pages) app.route("/", p);
  app.onError(renderError);
  return app;
}

export function mountConsole(app: Hono<AppEnv>) {
  app.route(AREAS.shop.path, area(AREAS.shop, [attentionPages, orderListPages, archivedOrderPages, orderPages, orderActionPages, cancellationPages, returnPages, returnListPages, lineActionPages, routingPages, rulesPages, suppliersPages, cataloguePages, webhooksPages, shopConnectionsPages, stockSyncPages, writeBackPages, apiKeysPages, settingsPages]));
  app.route(AREAS.supplier.path, area(AREAS.supplier, [supplierPortalPages, supplierDispatchPages, supplierCancellationPages, supplierReturnPages]));
  app.route(AREAS.operator.path, area(AREAS.operator, [operatorPages, pipelinePages]));
}
