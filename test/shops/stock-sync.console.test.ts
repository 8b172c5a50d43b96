// The console's stock-sync pages over HTTP (src/shops/stock/stock-syncs.pages.tsx): a connection's
// page lists its last runs and has a "Sync stock now" button (303 to the sync it queued), or says why
// not; a sync's page shows its status, progress, counts and each product's outcome; another
// account's sync is not found.
import { describe, expect, inject, it } from "vitest";
import { createAccount, exec, rows } from "../helpers/factories";
import { csrfOf, getPage as page, postForm as post, send, signIn } from "../helpers/console-http";
import { call, type Credentials } from "../helpers/http";
import { STOCK_ON } from "../helpers/stock";

/** A page's text as a reader sees it: tags gone, spaces collapsed. */
const textOf = (html: string) => html.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ");
/** The text of each body row of the table with this caption. */
const tableRows = (html: string, caption: string) => {
  const table = html.split(`<caption class="visually-hidden">${caption}</caption>`)[1]?.split("</table>")[0] ?? "";
  return [...table.matchAll(/<tr>(.*?)<\/tr>/gs)].slice(1).map((m) => textOf(m[1]).trim());
};

async function connection(creds: Credentials, settings: Record<string, unknown>) {
  const res = await call("POST", "/api/v1/shop-connections", {
    creds,
    body: {
      platform: "woocommerce",
      name: "Stock shop",
      base_url: new URL(inject("closedPortUrl")).origin,
      credentials: { consumer_key: "ck_stock_console_0123456789abcdef0123456789", consumer_secret: "cs_stock_console_0123456789abcdef0123456789" },
      settings,
    },
  });
  expect(res.status).toBe(201);
  return res.json.id as number;
}

/** A finished sync of four products, one of each outcome, as the service records it. */
async function finishedSync(accountId: number, connectionId: number) {
  await exec(
    `INSERT INTO stock_syncs (account_id, connection_id, status, "trigger", "full", from_seq, to_seq, total, done, updated, unchanged, unknown, failed, created_at, started_at, finished_at)
     VALUES (?, ?, 'succeeded', 'import', 1, 0, 4, 4, 4, 1, 1, 1, 1, '2026-11-25T21:40:00.000000Z', '2026-11-25T21:40:00.120000Z', '2026-11-25T21:41:30.480000Z')`,
    accountId,
    connectionId,
  );
  const [{ id }] = await rows<{ id: number }>("SELECT max(id) AS id FROM stock_syncs WHERE connection_id = ?", connectionId);
  await exec(
    `INSERT INTO stock_sync_items (sync_id, match_key, outcome, quantity, price, shop_id, reason) VALUES
       (?1, 'MUG-BLUE', 'updated', 7, NULL, '501', NULL),
       (?1, 'MUG-RED', 'unchanged', 0, NULL, '502', NULL),
       (?1, 'PLATE-XL', 'unknown', 4, NULL, NULL, 'The shop has no product with SKU PLATE-XL.'),
       (?1, 'BOWL-S', 'failed', 3, NULL, '503', 'The shop refused the product: Invalid ID.')`,
    id,
  );
  return id;
}

describe("the stock-sync pages", () => {
  it("list the last runs on the connection's page and show a finished sync's counts and each product's outcome", async () => {
    const creds = await createAccount();
    const id = await connection(creds, STOCK_ON);
    const syncId = await finishedSync(creds.accountId, id);
    const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });

    const shown = await page(`/console/shop-connections/${id}`, jar);
    expect(shown.status).toBe(200);
    expect(shown.html).toContain(`<form method="post" action="/console/shop-connections/${id}/stock-syncs" class="inline-action">`);
    expect(tableRows(shown.html, "The last stock syncs, newest first (up to 10)")).toEqual([
      `#${syncId} Succeeded After a feed import 2026-11-25 21:40 UTC 2026-11-25 21:41 UTC 4 of 4 1 1 1 0 1`,
    ]);
    expect(shown.html).toContain(`<a href="/console/shop-connections/${id}/stock-syncs/${syncId}">#${syncId}</a>`);

    const sync = await page(`/console/shop-connections/${id}/stock-syncs/${syncId}`, jar);
    expect(sync.status).toBe(200);
    const text = textOf(sync.html);
    expect(text).toContain(`Stock sync #${syncId} Progress Status Succeeded Trigger After a feed import · every product Started 2026-11-25 21:40 UTC Finished 2026-11-25 21:41 UTC`);
    expect(sync.html).toContain('<progress id="stock-sync-progress" value="4" max="4">4 of 4</progress>');
    expect(text).toContain("Products done 4 of 4 4 of 4 Updated 1 · Unchanged 1 · Unknown 1 · Skipped 0 · Failed 1");
    expect(tableRows(sync.html, "The sync&#39;s products by key")).toEqual([
      "BOWL-S 503 Failed — → 3 not synced The shop refused the product: Invalid ID.",
      "MUG-BLUE 501 Updated — → 7 not synced",
      "MUG-RED 502 Unchanged — → 0 not synced",
      "PLATE-XL — Unknown — → 4 not synced The shop has no product with SKU PLATE-XL.",
    ]);
    expect(text).toContain("1–4 of 4 products · page 1 of 1");
    // Ended: the section does not ask for itself again.
    expect(sync.html).not.toContain("hx-trigger");
  });

  it("Sync stock now queues a sync and answers 303 to its page, which polls while it runs", async () => {
    const creds = await createAccount();
    const id = await connection(creds, STOCK_ON);
    const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
    const csrf = csrfOf((await page(`/console/shop-connections/${id}`, jar)).html);

    const pressed = await post(`/console/shop-connections/${id}/stock-syncs`, jar, { _csrf: csrf });
    expect(pressed.status).toBe(303);
    const location = pressed.headers.get("location")!;
    const [created] = (await call("GET", `/api/v1/shop-connections/${id}/stock-syncs`, { creds })).json.data;
    expect(location).toBe(`/console/shop-connections/${id}/stock-syncs/${created.id}`);
    expect(created).toMatchObject({ connection_id: id, trigger: "manual", full: false });
    expect(textOf((await page(location, jar)).html)).toContain(`Stock sync queued: its progress shows here. Shop connections / Stock shop / Stock sync #${created.id}`);

    // Without the CSRF token nothing is queued.
    const forged = await post(`/console/shop-connections/${id}/stock-syncs`, jar, {});
    expect(forged.status).toBe(403);
    expect((await call("GET", `/api/v1/shop-connections/${id}/stock-syncs`, { creds })).json.meta.total).toBe(1);

    // A sync still queued (on another connection, no message sent for it): its page asks for its progress every second.
    const other = await connection(creds, STOCK_ON);
    await exec(`INSERT INTO stock_syncs (account_id, connection_id, status, "trigger", created_at) VALUES (?, ?, 'queued', 'manual', '2026-11-25T21:40:00.000000Z')`, creds.accountId, other);
    const [{ id: queuedId }] = await rows<{ id: number }>("SELECT max(id) AS id FROM stock_syncs WHERE connection_id = ?", other);
    const queuedPath = `/console/shop-connections/${other}/stock-syncs/${queuedId}`;
    const queued = await page(queuedPath, jar);
    expect(queued.html).toContain(
      `<section id="stock-sync-live" aria-labelledby="stock-sync-progress-heading" hx-get="${queuedPath}" hx-trigger="every 1s" hx-target="this" hx-swap="outerHTML">`,
    );
    expect(textOf(queued.html)).toContain("Status Queued Trigger On demand · the products that changed Started — Finished —");
    expect(textOf(queued.html)).toContain("Products done not started not started yet Updated 0 · Unchanged 0 · Unknown 0 · Skipped 0 · Failed 0");
    // htmx's poll gets the section alone.
    const fragment = await send(queuedPath, { jar, headers: { "hx-request": "true", "hx-target": "section#stock-sync-live" } });
    const fragmentHtml = await fragment.text();
    expect(fragmentHtml.startsWith('<section id="stock-sync-live"')).toBe(true);
    expect(fragmentHtml).not.toContain("<h1>");
  });

  it("a connection without stock sync says so instead of the button, and a press anyway queues nothing", async () => {
    const creds = await createAccount();
    const id = await connection(creds, {});
    const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
    const shown = await page(`/console/shop-connections/${id}`, jar);
    expect(textOf(shown.html)).toContain(
      "Stock sync Stock sync is not enabled on this connection: turn it on under Stock and price sync below. No stock sync has run yet.",
    );
    expect(shown.html).not.toContain("Sync stock now");
    const pressed = await post(`/console/shop-connections/${id}/stock-syncs`, jar, { _csrf: csrfOf(shown.html) });
    expect(pressed.status).toBe(303);
    expect(pressed.headers.get("location")).toBe(`/console/shop-connections/${id}`);
    expect(textOf((await page(`/console/shop-connections/${id}`, jar)).html)).toContain(
      "Stock sync is not enabled on this connection (settings.stock_sync.enabled); nothing was written.",
    );
    expect((await call("GET", `/api/v1/shop-connections/${id}/stock-syncs`, { creds })).json.meta.total).toBe(0);
  });

  it("another account's sync is not found, nor is its button (its own account sees it)", async () => {
    const owner = await createAccount();
    const id = await connection(owner, STOCK_ON);
    const syncId = await finishedSync(owner.accountId, id);
    const ownerJar = (await signIn({ account_id: String(owner.accountId), api_key: owner.apiKey })).jar;
    expect((await page(`/console/shop-connections/${id}/stock-syncs/${syncId}`, ownerJar)).status).toBe(200);
    const other = await createAccount();
    const { jar } = await signIn({ account_id: String(other.accountId), api_key: other.apiKey });
    expect((await page(`/console/shop-connections/${id}/stock-syncs/${syncId}`, jar)).status).toBe(404);
    const csrf = csrfOf((await page("/console/shop-connections/new", jar)).html);
    expect((await post(`/console/shop-connections/${id}/stock-syncs`, jar, { _csrf: csrf })).status).toBe(404);
    expect((await call("GET", `/api/v1/shop-connections/${id}/stock-syncs`, { creds: owner })).json.meta.total).toBe(1);
  });
});
