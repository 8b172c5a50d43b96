// The layering of src/, checked by dependency-cruiser in `npm test` (scripts/test.mjs runs it
// before vitest), so a broken rule fails like a broken test. README.md "Where things are" explains
// the layers. The names below are the building blocks of the rules; each rule says why it holds.

/** The capability folders: where the business lives (domain, contract and both faces). */
const CAPABILITY = "^src/(accounts|admin|attention|catalogue|events|forwarding|orders|routing|shops|suppliers)/";
/** A capability's files that are a face, a presenter or the contract; the rest of it is the domain. */
const NOT_DOMAIN = "\\.(routes|pages|present|schemas|openapi|middleware)\\.tsx?$";

/** The API face: routes, their OpenAPI documents and the routers. */
const API_FACE = ["\\.routes\\.ts$", "\\.openapi\\.ts$", "^src/lib/router\\.ts$"];
/** The console face: pages and every other JSX file, the console's router, CSRF and cookies, and the UI kit. */
const CONSOLE_FACE = ["\\.tsx$", "^src/console/", "^src/ui/"];
/** Middleware, shared by both faces: src/middleware/ and a capability's *.middleware.ts. */
const MIDDLEWARE = ["^src/middleware/", "\\.middleware\\.ts$"];
/** The HTTP framework itself (the contract's zod flavour, @hono/zod-openapi, included). */
const HTTP_FRAMEWORK = ["^node_modules/hono/", "^node_modules/@hono/"];

const domain = { path: CAPABILITY, pathNot: [NOT_DOMAIN, "\\.tsx$"] };

module.exports = {
  forbidden: [
    {
      name: "no-circular",
      comment:
        "No module reaches itself through its imports (type-only ones included): a cycle ties its files " +
        "into one knot that is loaded, tested and changed together. Dispatch planning lives beside the " +
        "journey (src/routing/dispatch-plan.ts); sending returns the dispatch it gave up on instead of " +
        "calling the journey (src/routing/failed-sends.ts carries it on); a component both pages use has a file of its own.",
      severity: "error",
      from: {},
      to: { circular: true },
    },
    {
      name: "domain-knows-no-http",
      comment:
        "Services and the rest of the domain take a Db and return data or throw ApiError; they know no " +
        "HTTP: no hono, no route files, no middleware. The API and the console call them alike.",
      severity: "error",
      from: domain,
      to: { path: [...HTTP_FRAMEWORK, ...API_FACE, ...MIDDLEWARE, "^src/app\\.ts$"] },
    },
    {
      name: "domain-knows-no-console",
      comment: "The domain knows no console: no pages or other JSX, no src/console/ (sign-in, CSRF, cookies), no UI kit.",
      severity: "error",
      from: domain,
      to: { path: CONSOLE_FACE },
    },
    {
      name: "domain-knows-no-pipeline",
      comment:
        "The domain decides, the pipeline (src/pipeline/) carries: the domain never calls into the " +
        "consumer, the sweepers or the cron. It queues work through the queue port, src/lib/queue.ts.",
      severity: "error",
      from: domain,
      to: { path: "^src/pipeline/" },
    },
    {
      name: "domain-knows-no-shards",
      comment:
        "Which shard holds an account is decided before the domain runs (the request's Db, the " +
        "message's shard); the domain works on the one Db it is given and never imports src/shards/.",
      severity: "error",
      from: domain,
      to: { path: "^src/shards/" },
    },
    {
      name: "domain-queues-through-the-port",
      comment:
        "The domain hands work to the pipeline through the Pipeline port it is given (src/lib/queue.ts), " +
        "or returns it as a plan's follow-ups: it imports the port's types only, never enqueue or a " +
        "port's maker (the request's comes from src/shards/request.ts, the carriers' from the consumer and the cron).",
      severity: "error",
      from: domain,
      to: { path: "^src/lib/queue\\.ts$", dependencyTypesNot: ["type-only"] },
    },
    {
      name: "faces-never-queue",
      comment:
        "Route and page files (the API face, the console) hand the request's pipeline to a service, which " +
        "decides what to queue and queues it (or returns it as a plan's follow-ups): they import neither the " +
        "queue port (src/lib/queue.ts, types included) nor a capability's message makers (*/queue.ts, such as " +
        "src/shops/stock/queue.ts), so what follows a request is decided in one place, the domain.",
      severity: "error",
      from: { path: [...API_FACE, ...CONSOLE_FACE] },
      to: { path: "^src/.*/queue\\.ts$" },
    },
    {
      name: "rerouting-decided-in-the-journey",
      comment:
        "Where a line that leaves its supplier goes next is decided in one place: src/routing/journey.ts " +
        "(planLeaving, and the overdue lines of the route step) is the only caller of src/routing/reroute.ts. " +
        "A supplier's answer, a failed send and a line action put the journey's plan in their batch.",
      severity: "error",
      from: { path: "^src/", pathNot: "^src/routing/journey\\.ts$" },
      to: { path: "^src/routing/reroute\\.ts$" },
    },
    {
      name: "channels-are-adapters",
      comment:
        "A supplier's channel (src/forwarding/channels/) sends a document and says how it went: it runs " +
        "no query, queues nothing and knows no other capability; the forwarding services decide what " +
        "its outcome means. It may read the documents' shapes (src/forwarding/document.ts, cancellation-document.ts, return-document.ts) " +
        "and the schema's types; the file channel opens the supplier's sealed file-server settings through the " +
        "suppliers' one function for it (src/suppliers/file-transfer.service.ts).",
      severity: "error",
      from: { path: "^src/forwarding/channels/" },
      to: {
        path: [CAPABILITY, "^src/pipeline/", "^src/db/(index|guards|sessions)\\.ts$", "^src/lib/queue\\.ts$"],
        pathNot: ["^src/forwarding/channels/", "^src/forwarding/(document|cancellation-document|return-document)\\.ts$", "^src/suppliers/file-transfer\\.service\\.ts$"],
      },
    },
    {
      name: "domain-returns-data",
      comment:
        "The domain returns domain data, never a face's output: it imports no presenter (*.present.ts, " +
        "the API's JSON) and no JSX (*.tsx, the console's HTML). The faces present what it returns.",
      severity: "error",
      from: domain,
      to: { path: ["\\.present\\.ts$", "\\.tsx$", "^node_modules/hono/dist/.*jsx"] },
    },
    {
      name: "presenters-only-present",
      comment:
        "A presenter (*.present.ts) turns domain data into the API's JSON: it runs no query (no Db " +
        "at run time; type imports are fine) and knows neither face.",
      severity: "error",
      from: { path: "\\.present\\.ts$" },
      to: {
        path: ["^src/db/(index|sessions)\\.ts$", "^node_modules/drizzle-orm/", ...API_FACE, ...CONSOLE_FACE, ...HTTP_FRAMEWORK],
        dependencyTypesNot: ["type-only"],
      },
    },
    {
      name: "console-never-imports-the-api",
      comment:
        "The two faces share the contract (*.schemas.ts) and the domain, never each other: a page, the " +
        "console or the UI kit never imports a route file or an OpenAPI document. A schema both faces " +
        "validate with lives in the capability's *.schemas.ts.",
      severity: "error",
      from: { path: CONSOLE_FACE },
      to: { path: ["\\.routes\\.ts$", "\\.openapi\\.ts$"] },
    },
    {
      name: "api-never-imports-the-console",
      comment:
        "The API face (routes, OpenAPI documents, the routers) never imports a page, src/console/ or " +
        "the UI kit. Only src/app.ts, which mounts both faces, knows them both.",
      severity: "error",
      from: { path: API_FACE },
      to: { path: CONSOLE_FACE },
    },
    {
      name: "middleware-knows-neither-face",
      comment:
        "Middleware is shared by the API and the console, so it knows neither: no route files, no " +
        "pages, no src/console/, no UI kit. What differs by face is passed in by the face's router.",
      severity: "error",
      from: { path: MIDDLEWARE },
      to: { path: [...API_FACE, ...CONSOLE_FACE] },
    },
    {
      name: "pipeline-knows-no-face",
      comment:
        "The pipeline (src/pipeline/: the consumer, sweepers, cron) carries messages between domain " +
        "calls; it knows neither face: no pages, console, UI kit, route files or middleware.",
      severity: "error",
      from: { path: "^src/pipeline/" },
      to: { path: [...API_FACE, ...CONSOLE_FACE, ...MIDDLEWARE] },
    },
    {
      name: "infrastructure-knows-no-business",
      comment:
        "db, lib, shards and the UI kit are the ground the capabilities stand on: they import no " +
        "capability folder and nothing of the pipeline, so any capability can use them without a cycle.",
      severity: "error",
      from: { path: "^src/(db|lib|shards|ui)/" },
      to: { path: [CAPABILITY, "^src/pipeline/"] },
    },
    {
      name: "lib-and-db-know-no-faces",
      comment:
        "lib and db serve every layer, so they know no middleware, no console and no UI kit either " +
        "(the routers in lib/router.ts get their middleware from the caller).",
      severity: "error",
      from: { path: "^src/(db|lib)/" },
      to: { path: [...MIDDLEWARE, "^src/console/", "^src/ui/", "\\.pages\\.tsx$"] },
    },
    {
      name: "ui-kit-knows-no-console",
      comment:
        "The UI kit (src/ui/) renders what it is given: it knows no console machinery (sign-in, CSRF, " +
        "reveal cookies); a page computes such values and passes them in.",
      severity: "error",
      from: { path: "^src/ui/" },
      to: { path: ["^src/console/", "\\.pages\\.tsx$"] },
    },
  ],
  options: {
    doNotFollow: { path: "node_modules" },
    // Imports of the Workers runtime (cloudflare:email, cloudflare:sockets) resolve only in workerd.
    exclude: { path: "^cloudflare:" },
    tsConfig: { fileName: "tsconfig.json" },
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ["exports"],
      conditionNames: ["import", "require", "node", "default", "types"],
      extensions: [".ts", ".tsx", ".js", ".d.ts"],
    },
  },
};
