// The console face of the account's API keys: the list (prefix, name, last used, expiry), a new key
// (shown once) and revoking one, through the same services and schema as /api/v1/api-keys.
import { Hono, type Context } from "hono";
import { ApiKeyBody } from "./api-keys.schemas";
import { clearCookie } from "../console/cookies";
import { AREAS } from "../console/areas";
import { sessionCookie } from "../console/auth";
import { attempt, done, formFields, text, type FormValues } from "../console/forms";
import { revealOnce, takeRevealed, type Revealed } from "../console/reveal";
import type { ApiKey } from "../db/schema";
import type { AppEnv } from "../env";
import type { ValidationErrors } from "../lib/errors";
import { idOrNotFound } from "../lib/params";
import { pageParam } from "../lib/pagination";
import { validateForm } from "../lib/validation";
import { PostButton } from "../ui/actions";
import { Badge } from "../ui/badge";
import { CsrfField, Field, FormError } from "../ui/field";
import { orDash } from "../ui/format";
import { Pagination } from "../ui/pagination";
import { SecretOnce } from "../ui/secret";
import { DataTable } from "../ui/table";
import { LocalTime } from "../ui/time";
import { apiKeyState, createApiKey, listApiKeys, revokeApiKey } from "./accounts.service";

export const apiKeysPages = new Hono<AppEnv>();

const PATH = "/console/api-keys";
const PER_PAGE = 50;
const LABELS = { name: "Name", expires_at: "Expires on" };

type View = { accountId: number; keys: ApiKey[]; total: number; page: number; currentKeyId: number; csrf: string; values: FormValues; errors: ValidationErrors; formError?: string; revealed?: Revealed };

async function render(c: Context<AppEnv>, form: { values?: FormValues; errors?: ValidationErrors; formError?: string } = {}) {
  const page = pageParam(c.req.query("page"));
  const { total, rows } = await listApiKeys(c.get("db"), c.get("account").id, { page, perPage: PER_PAGE });
  const view: View = {
    accountId: c.get("account").id,
    keys: rows,
    total,
    page,
    currentKeyId: c.get("account").apiKeyId,
    csrf: c.get("session").csrfToken,
    values: form.values ?? {},
    errors: form.errors ?? {},
    formError: form.formError,
    revealed: await takeRevealed(c),
  };
  return c.render(<ApiKeysPage view={view} query={new URL(c.req.url).searchParams} />, { title: "API keys" });
}

apiKeysPages.get("/api-keys", (c) => render(c));

apiKeysPages.post("/api-keys", async (c) => {
  const values = await formFields(c);
  const checked = validateForm(ApiKeyBody, { name: text(values, "name"), expires_at: text(values, "expires_at") }, LABELS);
  if (!checked.ok) {
    c.status(422);
    return render(c, { values, errors: checked.errors });
  }
  const { key, secret } = await createApiKey(c.get("db"), c.get("account").id, checked.data);
  await revealOnce(c, { label: `New API key ${key.prefix}…`, value: secret, note: `Use it with account ID ${key.accountId}.` });
  return done(c, PATH, { kind: "success", text: `API key ${key.prefix}… created${key.name ? ` (${key.name})` : ""}.` });
});

apiKeysPages.post("/api-keys/:id/revoke", async (c) => {
  const id = idOrNotFound(c.req.param("id"), "API key");
  const result = await attempt(() => revokeApiKey(c.get("db"), id, c.get("account").id));
  if (!result.ok) {
    c.status(409);
    return render(c, { formError: result.message });
  }
  if (id === c.get("account").apiKeyId) {
    // The session was opened with this key and ended with it (in the same batch).
    clearCookie(c, sessionCookie(AREAS.shop));
    return done(c, `${AREAS.shop.path}/sign-in`, { kind: "info", text: "You revoked the API key you signed in with, which ended this session. Sign in with another key." });
  }
  return done(c, PATH, { kind: "success", text: "API key revoked: it no longer works, and its console sessions have ended." });
});

const STATES = { active: { tone: "green", label: "Active" }, expired: { tone: "grey", label: "Expired" }, revoked: { tone: "red", label: "Revoked" } } as const;

function ApiKeysPage({ view, query }: { view: View; query: URLSearchParams }) {
  return (
    <>
      <hgroup>
        <h1>API keys</h1>
        <p>
          Keys your shop's plugin or your developers use with the account ID <strong>{view.accountId}</strong> (the API's <code>api-key</code> and{" "}
          <code>account-id</code> headers). Also through the API: <code>GET/POST /api/v1/api-keys</code>, <code>DELETE /api/v1/api-keys/&#123;id&#125;</code>.
        </p>
      </hgroup>
      <SecretOnce revealed={view.revealed} />
      <FormError messages={view.formError ? [view.formError] : undefined} />
      <DataTable<ApiKey>
        caption="API keys of the account, newest first"
        rows={view.keys}
        columns={[
          { header: "Prefix", cell: (k) => <code>{k.prefix}…</code> },
          { header: "Name", cell: (k) => orDash(k.name) },
          {
            header: "State",
            cell: (k) => (
              <span class="badges">
                <Badge tone={STATES[apiKeyState(k)].tone}>{STATES[apiKeyState(k)].label}</Badge>
                {k.id === view.currentKeyId ? <Badge tone="blue">This session</Badge> : null}
              </span>
            ),
          },
          { header: "Last used", cell: (k) => <LocalTime iso={k.lastUsedAt} /> },
          { header: "Expires", cell: (k) => (k.expiresAt ? <LocalTime iso={k.expiresAt} /> : "never") },
          { header: "Created", cell: (k) => <LocalTime iso={k.createdAt} /> },
          {
            header: "Actions",
            cell: (k) =>
              k.revokedAt ? (
                <span class="muted">
                  revoked <LocalTime iso={k.revokedAt} />
                </span>
              ) : (
                <PostButton
                  action={`${PATH}/${k.id}/revoke`}
                  csrf={view.csrf}
                  variant="danger"
                  label="Revoke"
                  ariaLabel={`Revoke key ${k.prefix}${k.id === view.currentKeyId ? " (signs you out)" : ""}`}
                />
              ),
          },
        ]}
      />
      <Pagination path={PATH} query={query} noun="key" window={{ page: view.page, perPage: PER_PAGE, total: view.total, shown: view.keys.length }} />
      <section aria-labelledby="new-key-heading">
        <h2 id="new-key-heading">Create a key</h2>
        <p class="muted">The key is shown once, right after it is created. Give each plugin or developer its own key, so that one can be revoked without the others.</p>
        <form method="post" action={PATH} novalidate>
          <CsrfField token={view.csrf} />
          <div class="filter-grid">
            <Field name="name" label={LABELS.name} value={text(view.values, "name")} errors={view.errors} hint="Optional, e.g. the plugin that uses it" />
            <Field name="expires_at" label={LABELS.expires_at} type="date" value={text(view.values, "expires_at")} errors={view.errors} hint="Optional: it stops working at 00:00 UTC that day" />
          </div>
          <button type="submit">Create key</button>
        </form>
      </section>
    </>
  );
}
