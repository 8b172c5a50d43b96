// The operator's pages for accounts and their API keys, from the same services as the admin API
// (GET and POST /admin/v1/accounts, GET and POST /admin/v1/accounts/{id}/api-keys,
// DELETE /admin/v1/api-keys/{id}) and the admin CLI: list and create accounts, an account's order
// volume per day, its keys with issue (the secret shown once) and revoke.
import { z } from "@hono/zod-openapi";
import { Hono, type Context } from "hono";
import {
  apiKeyState,
  createAccount,
  createApiKey,
  listAccounts,
  listApiKeys,
  ordersPerDay,
  revokeApiKey,
  VOLUME_MAX_DAYS,
  type DayVolume,
} from "../accounts/accounts.service";
import { listAccountsEverywhere, openAccount, revokeApiKeyAnywhere, toAccountShard } from "../shards/accounts";
import { done } from "../console/forms";
import { revealOnce, takeRevealed } from "../console/reveal";
import type { ApiKey } from "../db/schema";
import type { AppEnv } from "../env";
import type { ValidationErrors } from "../lib/errors";
import { pageParam } from "../lib/pagination";
import { idOrNotFound } from "../lib/params";
import { field, validateForm } from "../lib/validation";
import { PostButton } from "../ui/actions";
import { Badge } from "../ui/badge";
import { CsrfField, Field, SelectField } from "../ui/field";
import { EmptyState } from "../ui/notice";
import { Pagination } from "../ui/pagination";
import { SecretOnce } from "../ui/secret";
import { DataTable } from "../ui/table";
import { LocalTime } from "../ui/time";
import { ApiKeyBody } from "../accounts/api-keys.schemas";
import { AccountBody } from "./admin.schemas";
import { count } from "../lib/plural";

export const operatorPages = new Hono<AppEnv>();

const PER_PAGE = 50;
const accountPath = (id: number) => `/operator/accounts/${id}`;

operatorPages.get("/", (c) => c.redirect("/operator/accounts", 303));

// ---- Accounts ---------------------------------------------------------------------

type Form = { values: Record<string, string>; errors: ValidationErrors };

async function renderAccounts(c: Context<AppEnv>, form: Form = { values: {}, errors: {} }) {
  const page = { page: pageParam(c.req.query("page")), perPage: PER_PAGE };
  const { total, rows } = await listAccountsEverywhere(c.env, page, listAccounts);
  type Row = (typeof rows)[number];
  return c.render(
    <>
      <h1>Accounts</h1>
      <details class="create" open={total === 0 || Object.keys(form.errors).length > 0}>
        <summary>Create an account</summary>
        <form method="post" action="/operator/accounts" novalidate>
          <CsrfField token={c.get("session").csrfToken} />
          <Field name="name" label="Name" required value={form.values.name} errors={form.errors} hint="The shop's name, as its people will see it" />
          <button type="submit">Create account</button>
        </form>
      </details>
      {total === 0 ? (
        <EmptyState title="No accounts yet">
          <p>
            Create the first shop account above (or with <code>npm run admin -- accounts:create "Shop name"</code>), then issue it an API key on its page.
          </p>
        </EmptyState>
      ) : (
        <>
          <DataTable<Row>
            caption="Accounts, oldest first"
            rows={rows}
            columns={[
              { header: "ID", numeric: true, cell: (a) => a.id },
              { header: "Name", cell: (a) => <a href={accountPath(a.id)}>{a.name}</a> },
              { header: "Created", cell: (a) => <LocalTime iso={a.createdAt} /> },
              { header: "Shard", numeric: true, cell: (a) => a.shard },
              { header: "Active API keys", numeric: true, cell: (a) => a.activeApiKeys },
            ]}
          />
          <Pagination path="/operator/accounts" query={new URL(c.req.url).searchParams} noun="account" window={{ page: page.page, perPage: PER_PAGE, total, shown: rows.length }} />
        </>
      )}
    </>,
    { title: "Accounts" },
  );
}

operatorPages.get("/accounts", (c) => renderAccounts(c));

operatorPages.post("/accounts", async (c) => {
  const body = await c.req.parseBody();
  const values = { name: typeof body.name === "string" ? body.name : "" };
  const checked = validateForm(AccountBody, values, { name: "Name" });
  if (!checked.ok) {
    c.status(422);
    return renderAccounts(c, { values, errors: checked.errors });
  }
  // Its id from the directory, its rows on the shard with the most room (src/shards).
  const { account } = await openAccount(c, undefined, (db, accountId) => createAccount(db, checked.data.name, accountId));
  return done(c, accountPath(account.id), { kind: "success", text: `Account '${account.name}' created with ID ${account.id}. Issue it an API key below.` });
});

// ---- One account: volume and API keys ------------------------------------------------

const DAY_CHOICES = ["7", "30", "90", "365"];
const VolumeQuery = z.object({ days: field.optionalInt({ min: 1, max: VOLUME_MAX_DAYS }) });
const KEY_LABELS = { name: "Name", expires_at: "Expires on" };

async function renderAccount(c: Context<AppEnv>, keyForm: Form = { values: {}, errors: {} }) {
  const db = c.get("db");
  const id = idOrNotFound(c.req.param("id") ?? "", "Account");
  const rawDays = c.req.query("days") ?? "";
  const volumeQuery = validateForm(VolumeQuery, { days: rawDays }, { days: "Days" });
  const days = volumeQuery.ok ? (volumeQuery.data.days ?? 30) : null;
  const page = { page: pageParam(c.req.query("page")), perPage: PER_PAGE };
  const [{ account, total, rows }, volume, revealed] = await Promise.all([listApiKeys(db, id, page), days === null ? null : ordersPerDay(db, id, days), takeRevealed(c)]);
  if (!volumeQuery.ok) c.status(422);
  const token = c.get("session").csrfToken;
  return c.render(
    <>
      <nav class="breadcrumb" aria-label="Breadcrumb">
        <a href="/operator/accounts">Accounts</a>
      </nav>
      <hgroup>
        <h1>{account.name}</h1>
        <p>
          Account ID {account.id} · shard {c.get("shard")} · created <LocalTime iso={account.createdAt} />
        </p>
      </hgroup>

      <section aria-labelledby="volume-heading">
        <h2 id="volume-heading">Orders per day</h2>
        <form method="get" action={accountPath(id)} class="search-row">
          <SelectField
            name="days"
            label="Days"
            value={rawDays || "30"}
            errors={volumeQuery.ok ? {} : volumeQuery.errors}
            options={(DAY_CHOICES.includes(rawDays || "30") ? DAY_CHOICES : [...DAY_CHOICES, rawDays]).map((d) => ({ value: d, label: `Last ${count(Number(d), "day")}` }))}
          />
          <button type="submit">Show</button>
        </form>
        {volume ? <Volume days={volume} /> : null}
      </section>

      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">API keys</h2>
        <SecretOnce revealed={revealed} />
        {total === 0 ? (
          <EmptyState title="No API keys yet">
            <p>The shop needs one to call the API and to sign in to the console: issue it below (or <code>npm run admin -- keys:create {String(account.id)}</code>).</p>
          </EmptyState>
        ) : (
          <>
            <DataTable<ApiKey>
              caption={`API keys of ${account.name}, newest first`}
              rows={rows}
              columns={[
                { header: "Prefix", cell: (k) => <code>{k.prefix}…</code> },
                { header: "Name", cell: (k) => k.name ?? <span class="muted">—</span> },
                { header: "Created", cell: (k) => <LocalTime iso={k.createdAt} /> },
                { header: "Last used", cell: (k) => (k.lastUsedAt ? <LocalTime iso={k.lastUsedAt} /> : <span class="muted">never</span>) },
                { header: "Expires", cell: (k) => (k.expiresAt ? <LocalTime iso={k.expiresAt} /> : <span class="muted">never</span>) },
                { header: "Status", cell: (k) => <KeyStatus apiKey={k} /> },
                {
                  header: "Action",
                  cell: (k) =>
                    k.revokedAt ? null : <PostButton action={`/operator/api-keys/${k.id}/revoke`} csrf={token} variant="danger" label="Revoke" ariaLabel={`Revoke key ${k.prefix}`} />,
                },
              ]}
            />
            <Pagination path={accountPath(id)} query={new URL(c.req.url).searchParams} noun="key" window={{ page: page.page, perPage: PER_PAGE, total, shown: rows.length }} />
          </>
        )}
        <details class="create" open={total === 0 || Object.keys(keyForm.errors).length > 0}>
          <summary>Issue an API key</summary>
          <form method="post" action={`${accountPath(id)}/api-keys`} novalidate>
            <CsrfField token={token} />
            <Field name="name" label={KEY_LABELS.name} value={keyForm.values.name} errors={keyForm.errors} hint="Optional: what uses the key, e.g. the shop's plugin" />
            <Field name="expires_at" label={KEY_LABELS.expires_at} type="date" value={keyForm.values.expires_at} errors={keyForm.errors} hint="Optional: the key stops working at the start of this day (UTC)" />
            <button type="submit">Issue API key</button>
          </form>
        </details>
      </section>
    </>,
    { title: account.name },
  );
}

// An account's page and its forms run on the account's shard.
operatorPages.use("/accounts/:id", accountShard);
operatorPages.use("/accounts/:id/*", accountShard);
async function accountShard(c: Context<AppEnv>, next: () => Promise<void>) {
  const id = c.req.param("id") ?? "";
  if (/^\d{1,15}$/.test(id)) await toAccountShard(c, Number(id));
  await next();
}

operatorPages.get("/accounts/:id", (c) => renderAccount(c));

operatorPages.post("/accounts/:id/api-keys", async (c) => {
  const id = idOrNotFound(c.req.param("id"), "Account");
  const body = await c.req.parseBody();
  const values = { name: typeof body.name === "string" ? body.name : "", expires_at: typeof body.expires_at === "string" ? body.expires_at : "" };
  const checked = validateForm(ApiKeyBody, values, KEY_LABELS);
  if (!checked.ok) {
    c.status(422);
    return renderAccount(c, { values, errors: checked.errors });
  }
  const { key, secret } = await createApiKey(c.get("db"), id, checked.data);
  await revealOnce(c, { label: `New API key ${key.prefix}…`, value: secret, note: `It works with account ID ${key.accountId}.` });
  return done(c, accountPath(id), { kind: "success", text: `API key ${key.prefix}… issued${key.name ? ` (${key.name})` : ""}.` });
});

operatorPages.post("/api-keys/:id/revoke", async (c) => {
  const keyId = idOrNotFound(c.req.param("id"), "API key");
  const key = await revokeApiKeyAnywhere(c.env, keyId, (db, now) => revokeApiKey(db, keyId, undefined, now));
  return done(c, accountPath(key.accountId), { kind: "success", text: `API key ${key.prefix}… revoked: its API calls and console sessions are refused from now on.` });
});

function KeyStatus({ apiKey: k }: { apiKey: ApiKey }) {
  switch (apiKeyState(k)) {
    case "revoked":
      return (
        <Badge tone="red">
          Revoked <LocalTime iso={k.revokedAt} />
        </Badge>
      );
    case "expired":
      return <Badge tone="grey">Expired</Badge>;
    case "active":
      return <Badge tone="green">Active</Badge>;
  }
}

/** A table (readable without colour or JavaScript) whose last column draws each day's bar. */
function Volume({ days }: { days: DayVolume[] }) {
  const total = days.reduce((sum, d) => sum + d.orders, 0);
  const tests = days.reduce((sum, d) => sum + d.testOrders, 0);
  const max = Math.max(1, ...days.map((d) => d.orders + d.testOrders));
  if (total + tests === 0) {
    return (
      <EmptyState title={`No orders in the last ${count(days.length, "day")}`}>
        <p>Orders the shop sends (POST /api/v1/orders) are counted here per day. Pick a longer period above to look further back.</p>
      </EmptyState>
    );
  }
  return (
    <>
      <p>
        {count(total, "order")} in the last {count(days.length, "day")}{tests ? ` (and ${count(tests, "test order")})` : ""}; days in UTC.
      </p>
      <DataTable<DayVolume>
        caption={`Orders per day, last ${count(days.length, "day")}, newest first`}
        rows={[...days].reverse()}
        columns={[
          { header: "Day", cell: (d) => d.day },
          { header: "Orders", numeric: true, cell: (d) => d.orders },
          { header: "Test orders", numeric: true, cell: (d) => d.testOrders },
          {
            header: "Volume",
            cell: (d) => (
              <svg class="bar" viewBox="0 0 100 10" preserveAspectRatio="none" aria-hidden="true" focusable="false">
                <rect class="bar-orders" x="0" y="0" height="10" width={String((d.orders / max) * 100)} />
                <rect class="bar-test" x={String((d.orders / max) * 100)} y="0" height="10" width={String((d.testOrders / max) * 100)} />
              </svg>
            ),
          },
        ]}
      />
    </>
  );
}

