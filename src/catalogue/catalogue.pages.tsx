// The console face of the catalogue: the feeds with their schedule and latest import, a new feed and
// an edit of its mapping (feed-form.pages.tsx), a feed's import history with every kept rejected row
// and its reason and the columns it did not map, uploading a file from the browser
// (streamed into the same import as PUT /api/v1/product-feeds/{id}/products, with the same limit),
// pulling the feed's URL now, and the product search with the filters of GET /api/v1/products.
import { Hono, type Context } from "hono";
import { done } from "../console/forms";
import type { ProductFeed, ProductImport } from "../db/schema";
import type { AppEnv } from "../env";
import { ApiError, type ValidationErrors } from "../lib/errors";
import { pageParam } from "../lib/pagination";
import { sealingKeys } from "../lib/sealed";
import { validateForm } from "../lib/validation";
import { supplierChoices } from "../suppliers/suppliers.service";
import { PostButton } from "../ui/actions";
import { Badge, type Tone } from "../ui/badge";
import { CsrfField, Field, SelectField } from "../ui/field";
import { money, orDash } from "../ui/format";
import { EmptyState } from "../ui/notice";
import { Pagination } from "../ui/pagination";
import { DataTable } from "../ui/table";
import { LocalTime } from "../ui/time";
import { feedFormPages } from "./feed-form.pages";
import { getFeed, listFeeds, listFeedsWithLatestImport } from "./feeds.service";
import { shownLogin, withoutLogin } from "./feed-urls";
import { importFromUrl, importUpload, listImports, MAX_FEED_BYTES } from "./imports.service";
import { ListProductsQuery } from "./products.schemas";
import { listProducts, PRODUCTS_PER_PAGE } from "./products.service";

export const cataloguePages = new Hono<AppEnv>();
// First: /catalogue/feeds/new before /catalogue/feeds/:id.
cataloguePages.route("/", feedFormPages);

const PATH = "/console/catalogue";
const IMPORTS_PER_PAGE = 10;

const IMPORT_LOOK: Record<ProductImport["status"], { label: string; tone: Tone }> = {
  running: { label: "Running", tone: "blue" },
  succeeded: { label: "Succeeded", tone: "green" },
  failed: { label: "Failed", tone: "red" },
};

function ImportBadge({ record }: { record: ProductImport }) {
  const look = IMPORT_LOOK[record.status];
  return (
    <span class="badges">
      <Badge tone={look.tone}>{look.label}</Badge>
      {record.rowsRejected > 0 ? <Badge tone="amber">{`${record.rowsRejected} rejected`}</Badge> : null}
      {record.status === "succeeded" && record.unmappedColumns.length > 0 ? <Badge tone="amber">{`${record.unmappedColumns.length} not mapped`}</Badge> : null}
    </span>
  );
}

const every = (schedule: string) => (/^(hourly|daily|weekly)$/.test(schedule) ? schedule : `every ${schedule}`);

const counts = (i: ProductImport) =>
  `${i.rowsRead} read: ${i.rowsCreated} new, ${i.rowsUpdated} changed, ${i.rowsUnchanged} unchanged, ${i.rowsDeactivated} deactivated, ${i.rowsRejected} rejected`;

function CatalogueNav({ current }: { current: "feeds" | "products" }) {
  return (
    <nav aria-label="Catalogue" class="subnav">
      <ul>
        <li>
          <a href={PATH} aria-current={current === "feeds" ? "page" : undefined}>
            Feeds
          </a>
        </li>
        <li>
          <a href={`${PATH}/products`} aria-current={current === "products" ? "page" : undefined}>
            Products
          </a>
        </li>
      </ul>
    </nav>
  );
}

// ---- Feeds ---------------------------------------------------------------------------

cataloguePages.get("/catalogue", async (c) => {
  const page = pageParam(c.req.query("page"));
  const { total, rows, latestImport, supplierNames } = await listFeedsWithLatestImport(c.get("db"), c.get("account").id, { page, perPage: 50 });
  return c.render(
    <>
      <hgroup>
        <h1>Catalogue</h1>
        <p>Your suppliers' products, from their feeds: who stocks what at which price. Lines that no rule decides go to the cheapest supplier with stock.</p>
      </hgroup>
      <CatalogueNav current="feeds" />
      <p class="page-actions">
        <a href={`${PATH}/feeds/new`} role="button">
          New feed
        </a>
      </p>
      {total === 0 ? (
        <EmptyState title="No feeds yet">
          <p>
            Set up a feed for a supplier with <a href={`${PATH}/feeds/new`}>New feed</a> (or <code>POST /api/v1/product-feeds</code>, see <a href="/docs">the documentation</a>): a
            URL we pull on a schedule, or files you upload or push. Its column mapping says which of the file's columns holds each product field.
          </p>
        </EmptyState>
      ) : (
        <>
          <DataTable<ProductFeed>
            caption="Product feeds"
            rows={rows}
            columns={[
              { header: "Feed", cell: (f) => <a href={`${PATH}/feeds/${f.id}`}>{f.name}</a> },
              { header: "Supplier", cell: (f) => supplierNames.get(f.supplierId) ?? `#${f.supplierId}` },
              { header: "Format", cell: (f) => f.format.toUpperCase() },
              { header: "Schedule", cell: (f) => (f.schedule ? every(f.schedule) : f.url ? "on demand" : "pushed files") },
              { header: "Next pull", cell: (f) => <LocalTime iso={f.nextImportAt} /> },
              {
                header: "Latest import",
                cell: (f) => {
                  const last = latestImport.get(f.id);
                  return last ? (
                    <span>
                      <ImportBadge record={last} /> <LocalTime iso={last.startedAt} />
                    </span>
                  ) : (
                    "none yet"
                  );
                },
              },
              { header: "State", cell: (f) => (f.active ? <Badge tone="green">Active</Badge> : <Badge tone="grey">Inactive</Badge>) },
            ]}
          />
          <Pagination path={PATH} query={new URL(c.req.url).searchParams} noun="feed" window={{ page, perPage: 50, total, shown: rows.length }} />
        </>
      )}
    </>,
    { title: "Catalogue" },
  );
});

// ---- One feed ---------------------------------------------------------------------------

async function feedPage(c: Context<AppEnv>) {
  const db = c.get("db");
  const feed = await getFeed(db, c.get("account").id, c.req.param("id") ?? "");
  const page = pageParam(c.req.query("page"));
  const [{ total, rows }, suppliers] = await Promise.all([listImports(db, feed, { page, perPage: IMPORTS_PER_PAGE }), supplierChoices(db, c.get("account").id)]);
  const supplier = suppliers.find((s) => s.id === feed.supplierId);
  const login = shownLogin(feed);
  const csrf = c.get("session").csrfToken;
  const base = `${PATH}/feeds/${feed.id}`;
  return c.render(
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href={PATH}>Catalogue</a> / <span aria-current="page">{feed.name}</span>
      </nav>
      <hgroup>
        <h1>Feed {feed.name}</h1>
        <p>
          {supplier?.name ?? `Supplier #${feed.supplierId}`} · {feed.format.toUpperCase()} · <a href={`${PATH}/products?product_feed_id=${feed.id}`}>its products</a>
        </p>
      </hgroup>
      <p class="page-actions">
        <a href={`${base}/edit`} role="button" class="secondary outline">
          Edit settings and mapping
        </a>
      </p>
      <dl class="facts">
        <dt>URL</dt>
        <dd>{orDash(withoutLogin(feed.url))}</dd>
        {login ? (
          <>
            <dt>Login</dt>
            <dd>
              {login.username} ({login.authentication === "password" ? "password" : "private key"} stored, never shown)
              {login.host_key_fingerprint ? `, host key ${login.host_key_fingerprint}` : ""}
            </dd>
          </>
        ) : null}
        <dt>Schedule</dt>
        <dd>{feed.schedule ? every(feed.schedule) : "none (pulled on demand, or files pushed)"}</dd>
        <dt>Next pull</dt>
        <dd>
          <LocalTime iso={feed.nextImportAt} />
        </dd>
        <dt>Column mapping</dt>
        <dd>{Object.keys(feed.mapping ?? {}).length ? Object.entries(feed.mapping ?? {}).map(([k, v]) => `${k} ← ${v}`).join(", ") : "the file's own field names"}</dd>
      </dl>

      <section aria-labelledby="upload-heading">
        <h2 id="upload-heading">Upload a file</h2>
        <form method="post" action={`${base}/upload`} enctype="multipart/form-data" class="stacked">
          {/* The token first: the upload is read as it streams, its fields before the file. */}
          <CsrfField token={csrf} />
          <label for="field-replace">
            <input id="field-replace" type="checkbox" name="replace" value="true" />
            Full sync: deactivate the feed's products the file no longer lists
          </label>
          <div class="field">
            <label for="field-file">File (CSV, JSON or XML, up to {MAX_FEED_BYTES / 1048576} MiB; gzip accepted)</label>
            <input id="field-file" type="file" name="file" required accept=".csv,.json,.xml,.gz,text/csv,application/json,application/xml,text/xml" />
          </div>
          <button type="submit">Upload and import</button>
        </form>
        {feed.url ? (
          <p>
            <PostButton action={`${base}/import`} csrf={csrf} variant="secondary" label="Pull the URL now" />
          </p>
        ) : null}
      </section>

      <section aria-labelledby="imports-heading">
        <h2 id="imports-heading">Imports</h2>
        {total === 0 ? (
          <p class="muted">No imports yet: upload a file above{feed.url ? ", or pull the URL" : ""}.</p>
        ) : (
          rows.map((i) => <ImportCard record={i} />)
        )}
        <Pagination path={base} query={new URL(c.req.url).searchParams} noun="import" window={{ page, perPage: IMPORTS_PER_PAGE, total, shown: rows.length }} />
      </section>
    </>,
    { title: `Feed ${feed.name}` },
  );
}

function ImportCard({ record: i }: { record: ProductImport }) {
  return (
    <article class="import" aria-labelledby={`import-${i.id}`}>
      <header>
        <h3 id={`import-${i.id}`}>
          Import #{i.id} <small class="muted">{i.trigger} · {withoutLogin(i.source)}</small>
        </h3>
        <ImportBadge record={i} />
      </header>
      <p>
        <LocalTime iso={i.startedAt} /> · {counts(i)}
        {i.replace ? " · full sync" : ""}
      </p>
      {i.error ? <p class="callout">{i.error}</p> : null}
      {i.warnings.map((w) => (
        <p class="callout warning">{w}</p>
      ))}
      {i.rejections.length ? (
        <DataTable<ProductImport["rejections"][number]>
          caption={`Rejected rows of import #${i.id}${i.rowsRejected > i.rejections.length ? ` (the first ${i.rejections.length} of ${i.rowsRejected})` : ""}`}
          rows={i.rejections}
          columns={[
            { header: "Line", numeric: true, cell: (r) => r.line },
            { header: "SKU", cell: (r) => orDash(r.sku) },
            { header: "Reason", cell: (r) => r.reason },
          ]}
        />
      ) : null}
      {i.rowsRejected > i.rejections.length ? <p class="muted">The first {i.rejections.length} rejected rows are kept, as in the API.</p> : null}
    </article>
  );
}

cataloguePages.get("/catalogue/feeds/:id", (c) => feedPage(c));

const KNOWN_TYPES = /^(text\/csv|application\/csv|application\/json|text\/json|application\/xml|text\/xml|application\/gzip|application\/x-gzip)$/i;
const BY_EXTENSION: Record<string, string> = { csv: "text/csv", json: "application/json", xml: "application/xml" };

cataloguePages.post("/catalogue/feeds/:id/upload", async (c) => {
  const db = c.get("db");
  const feed = await getFeed(db, c.get("account").id, c.req.param("id"));
  const back = `${PATH}/feeds/${feed.id}`;
  const form = c.get("multipart");
  if (!form?.file || form.file.filename === "") {
    await form?.file?.body.cancel();
    return done(c, back, { kind: "error", text: "Choose a file to upload." });
  }
  const { file } = form;
  // Browsers label a CSV differently by system (application/vnd.ms-excel, ...): the extension decides then.
  const extension = /\.(csv|json|xml)(\.gz)?$/i.exec(file.filename)?.[1]?.toLowerCase();
  const contentType = KNOWN_TYPES.test(file.contentType) && !/gzip/i.test(file.contentType) ? file.contentType : extension ? BY_EXTENSION[extension] : "application/octet-stream";
  let outcome: Awaited<ReturnType<typeof importUpload>>;
  try {
    outcome = await importUpload(db, c.get("pipeline"), feed, { body: file.body, contentType, replace: form.fields.replace === "true" });
  } catch (error) {
    if (error instanceof ApiError && (error.status === 409 || error.status === 415)) return done(c, back, { kind: "error", text: error.detail?.error ?? error.message });
    throw error;
  }
  if (outcome.failure === "internal") throw new Error(`import ${outcome.record.id} failed`);
  const r = outcome.record;
  if (outcome.failure === "file") return done(c, back, { kind: "error", text: `${file.filename} was not imported: ${r.error ?? "the file could not be read"}` });
  return done(c, back, { kind: r.rowsRejected || r.warnings.length ? "info" : "success", text: [`${file.filename} imported: ${counts(r)}.`, ...r.warnings].join(" ") });
});

cataloguePages.post("/catalogue/feeds/:id/import", async (c) => {
  const db = c.get("db");
  const feed = await getFeed(db, c.get("account").id, c.req.param("id"));
  const back = `${PATH}/feeds/${feed.id}`;
  try {
    const { record, failure } = await importFromUrl(db, c.get("pipeline"), feed, "manual", () => sealingKeys(c.env));
    if (failure === "internal") throw new Error(`import ${record.id} failed`);
    if (failure === "file") return done(c, back, { kind: "error", text: `The URL was not imported: ${record.error ?? "the feed could not be read"}` });
    return done(c, back, { kind: record.rowsRejected || record.warnings.length ? "info" : "success", text: [`Pulled: ${counts(record)}.`, ...record.warnings].join(" ") });
  } catch (error) {
    if (error instanceof ApiError && (error.status === 409 || error.status === 422)) return done(c, back, { kind: "error", text: error.detail?.error ?? Object.values(error.detail?.errors ?? {}).flat().join(" ") });
    throw error;
  }
});

// ---- Products --------------------------------------------------------------------------

const PRODUCT_LABELS: Record<string, string> = { search: "Name contains", sku: "SKU", ean13: "EAN", product_feed_id: "Feed", active: "State", updated_since: "Updated since" };
const PRODUCT_KEYS = ["search", "sku", "ean13", "product_feed_id", "active", "updated_since", "page"] as const;

cataloguePages.get("/catalogue/products", async (c) => {
  const db = c.get("db");
  const accountId = c.get("account").id;
  const url = new URL(c.req.url);
  const raw: Record<string, string> = {};
  for (const key of PRODUCT_KEYS) {
    const v = url.searchParams.get(key);
    if (v !== null && v !== "") raw[key] = v;
  }
  const checked = validateForm(ListProductsQuery, raw, PRODUCT_LABELS);
  const feedsQuery = listFeeds(db, accountId, { page: 1, perPage: 100 });
  let result: Awaited<ReturnType<typeof listProducts>> | undefined;
  let errors: ValidationErrors = {};
  const page = pageParam(raw.page);
  if (checked.ok) result = await listProducts(db, accountId, checked.data, { page, perPage: PRODUCTS_PER_PAGE });
  else {
    errors = checked.errors;
    c.status(422);
  }
  const { rows: feeds } = await feedsQuery;
  const feedName = new Map(feeds.map((f) => [f.id, f.name]));
  type Product = NonNullable<typeof result>["rows"][number];
  return c.render(
    <>
      <h1>Products</h1>
      <CatalogueNav current="products" />
      <form method="get" action={`${PATH}/products`} class="filters">
        <div class="search-row">
          <Field name="search" label={PRODUCT_LABELS.search} type="search" value={raw.search} errors={errors} />
          <button type="submit">Search</button>
          <a href={`${PATH}/products`} role="button" class="secondary outline">
            Clear
          </a>
        </div>
        <div class="filter-grid">
          <Field name="sku" label={PRODUCT_LABELS.sku} value={raw.sku} errors={errors} hint="Exactly" />
          <Field name="ean13" label={PRODUCT_LABELS.ean13} inputmode="numeric" value={raw.ean13} errors={errors} hint="8 to 14 digits" />
          <SelectField
            name="product_feed_id"
            label={PRODUCT_LABELS.product_feed_id}
            value={raw.product_feed_id ?? ""}
            errors={errors}
            options={[{ value: "", label: "Every feed" }, ...feeds.map((f) => ({ value: String(f.id), label: f.name }))]}
          />
          <SelectField
            name="active"
            label={PRODUCT_LABELS.active}
            value={raw.active ?? ""}
            errors={errors}
            options={[
              { value: "", label: "Active or not" },
              { value: "true", label: "Active only" },
              { value: "false", label: "Inactive only" },
            ]}
          />
          <Field name="updated_since" label={PRODUCT_LABELS.updated_since} type="date" value={raw.updated_since} errors={errors} />
        </div>
      </form>
      {result ? (
        result.total === 0 ? (
          <EmptyState title={Object.keys(raw).length ? "No product matches" : "No products yet"}>
            <p>{Object.keys(raw).length ? "Loosen the filters, or clear them." : "Products arrive with your suppliers' feeds: upload a file to a feed under Feeds."}</p>
          </EmptyState>
        ) : (
          <>
            <DataTable<Product>
              caption="Products, ids ascending"
              rows={result.rows}
              columns={[
                { header: "SKU", cell: (p) => p.sku },
                { header: "EAN", cell: (p) => orDash(p.ean13) },
                { header: "Name", cell: (p) => p.name },
                { header: "Purchase price", numeric: true, cell: (p) => money(p.purchasePrice, c.get("account").currency) },
                { header: "Stock", numeric: true, cell: (p) => orDash(p.stockQuantity) },
                { header: "Feed", cell: (p) => feedName.get(p.productFeedId) ?? `#${p.productFeedId}` },
                { header: "State", cell: (p) => (p.active ? <Badge tone="green">Active</Badge> : <Badge tone="grey">Inactive</Badge>) },
                { header: "Updated", cell: (p) => <LocalTime iso={p.updatedAt} /> },
              ]}
            />
            <Pagination path={`${PATH}/products`} query={url.searchParams} noun="product" window={{ page, perPage: PRODUCTS_PER_PAGE, total: result.total, shown: result.rows.length }} />
          </>
        )
      ) : null}
    </>,
    { title: "Products" },
  );
});
