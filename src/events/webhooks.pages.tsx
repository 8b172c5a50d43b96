// The console face of webhooks: the shop's subscriptions (new, edit events and URL, pause and
// resume, rotate the secret shown once, delete) and each one's deliveries with every attempt, and
// redelivering one. The same schemas and services as webhooks.routes.ts.
import { Hono, type Context } from "hono";
import { attempt, done, formFields, text, type FormValues } from "../console/forms";
import { revealOnce, takeRevealed, type Revealed } from "../console/reveal";
import { EVENT_TYPES, type WebhookSubscription } from "../db/schema";
import type { AppEnv } from "../env";
import type { ValidationErrors } from "../lib/errors";
import { idOrNotFound, parseId } from "../lib/params";
import { pageParam } from "../lib/pagination";
import { validateForm } from "../lib/validation";
import { PostButton } from "../ui/actions";
import { Badge, type Tone } from "../ui/badge";
import { Checkbox, CheckboxGroup, CsrfField, Field, FormError, SelectField } from "../ui/field";
import { orDash } from "../ui/format";
import { EmptyState } from "../ui/notice";
import { Pagination } from "../ui/pagination";
import { SecretOnce } from "../ui/secret";
import { DataTable } from "../ui/table";
import { LocalTime } from "../ui/time";
import { CreateWebhook, DELIVERY_STATUSES } from "./webhooks.schemas";
import { createWebhook, deleteWebhook, getWebhook, listDeliveries, listWebhooks, redeliver, updateWebhook, type AttemptRow, type DeliveryRow, type DeliveryStatus } from "./webhooks.service";

export const webhooksPages = new Hono<AppEnv>();

const PATH = "/console/webhooks";
const PER_PAGE = 25;
const LABELS: Record<string, string> = { url: "Endpoint URL", events: "Events", secret: "Signing secret", active: "Active", status: "Status" };

export const DELIVERY_LOOK: Record<DeliveryStatus, { label: string; tone: Tone }> = {
  pending: { label: "Waiting", tone: "amber" },
  delivering: { label: "Sending", tone: "blue" },
  delivered: { label: "Delivered", tone: "green" },
  failed: { label: "Failed", tone: "red" },
};

const csrfOf = (c: Context<AppEnv>) => c.get("session").csrfToken;
const webhookId = (c: Context<AppEnv>) => idOrNotFound(c.req.param("id")!, "Webhook");

function webhookInput(values: FormValues, withSecret: boolean) {
  return {
    url: text(values, "url"),
    events: values.events,
    active: text(values, "active") === "true" ? "true" : "false",
    ...(withSecret ? { secret: text(values, "secret") } : {}),
  };
}

// ---- The list ------------------------------------------------------------------

webhooksPages.get("/webhooks", async (c) => {
  const page = pageParam(c.req.query("page"));
  const { total, rows } = await listWebhooks(c.get("db"), c.get("account").id, { page, perPage: 50 });
  return c.render(
    <>
      <hgroup>
        <h1>Webhooks</h1>
        <p>Your endpoints that hear about orders as they change, each request signed with the subscription's secret.</p>
      </hgroup>
      <p class="page-actions">
        <a href={`${PATH}/new`} role="button">
          New webhook
        </a>
      </p>
      {total === 0 ? (
        <EmptyState title="No webhooks yet">
          <p>Subscribe an endpoint of your shop to events (an order created, blocked or completed, a line's status changed or shipped) instead of polling the API.</p>
        </EmptyState>
      ) : (
        <>
          <DataTable<WebhookSubscription>
            caption="Webhook subscriptions, oldest first"
            rows={rows}
            columns={[
              { header: "Endpoint", cell: (w) => <a href={`${PATH}/${w.id}`}>{w.url}</a> },
              { header: "Events", cell: (w) => w.events.join(", ") },
              { header: "State", cell: (w) => (w.active ? <Badge tone="green">Active</Badge> : <Badge tone="grey">Paused</Badge>) },
              { header: "Created", cell: (w) => <LocalTime iso={w.createdAt} /> },
            ]}
          />
          <Pagination path={PATH} query={new URL(c.req.url).searchParams} noun="webhook" window={{ page, perPage: 50, total, shown: rows.length }} />
        </>
      )}
    </>,
    { title: "Webhooks" },
  );
});

// ---- A new subscription ---------------------------------------------------------------

const renderNew = (c: Context<AppEnv>, values: FormValues = { events: [...EVENT_TYPES], active: "true" }, errors: ValidationErrors = {}) =>
  c.render(
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href={PATH}>Webhooks</a> / <span aria-current="page">New webhook</span>
      </nav>
      <h1>New webhook</h1>
      <WebhookForm action={`${PATH}/new`} csrf={csrfOf(c)} values={values} errors={errors} withSecret submit="Create webhook" />
    </>,
    { title: "New webhook" },
  );

webhooksPages.get("/webhooks/new", (c) => renderNew(c));

webhooksPages.post("/webhooks/new", async (c) => {
  const values = await formFields(c, ["events"]);
  const checked = validateForm(CreateWebhook, webhookInput(values, true), LABELS);
  if (!checked.ok) {
    c.status(422);
    return renderNew(c, values, checked.errors);
  }
  const row = await createWebhook(c.get("db"), c.get("account").id, checked.data);
  await revealOnce(c, { label: "Signing secret of the new webhook", value: row.secret, note: "Check the X-Webhook-Signature of every request with it." });
  return done(c, `${PATH}/${row.id}`, { kind: "success", text: "Webhook created." });
});

// ---- One subscription --------------------------------------------------------------------

type WebhookView = {
  webhook: WebhookSubscription;
  deliveries: Awaited<ReturnType<typeof listDeliveries>>;
  page: number;
  status: DeliveryStatus | undefined;
  query: URLSearchParams;
  csrf: string;
  values?: FormValues;
  errors?: ValidationErrors;
  revealed?: Revealed;
};

async function renderWebhook(c: Context<AppEnv>, form: { values?: FormValues; errors?: ValidationErrors } = {}) {
  const id = webhookId(c);
  const accountId = c.get("account").id;
  const page = pageParam(c.req.query("page"));
  const raw = c.req.query("status");
  const status = (DELIVERY_STATUSES as readonly string[]).includes(raw ?? "") ? (raw as DeliveryStatus) : undefined;
  const [webhook, deliveries] = await Promise.all([getWebhook(c.get("db"), accountId, id), listDeliveries(c.get("db"), accountId, id, { page, perPage: PER_PAGE }, status)]);
  const view: WebhookView = { webhook, deliveries, page, status, query: new URL(c.req.url).searchParams, csrf: csrfOf(c), ...form, revealed: await takeRevealed(c) };
  return c.render(<WebhookPage view={view} />, { title: `Webhook ${webhook.url}` });
}

webhooksPages.get("/webhooks/:id", (c) => renderWebhook(c));

webhooksPages.post("/webhooks/:id", async (c) => {
  const id = webhookId(c);
  const values = await formFields(c, ["events"]);
  const { url, events } = webhookInput(values, false);
  // The form edits the URL and the events; pausing and the secret have buttons of their own.
  const checked = validateForm(CreateWebhook.pick({ url: true, events: true }), { url, events }, LABELS);
  if (!checked.ok) {
    c.status(422);
    return renderWebhook(c, { values, errors: checked.errors });
  }
  await updateWebhook(c.get("db"), c.get("account").id, id, { url: checked.data.url, events: checked.data.events });
  return done(c, `${PATH}/${id}`, { kind: "success", text: "Webhook saved." });
});

for (const [action, active] of [["pause", false], ["resume", true]] as const) {
  webhooksPages.post(`/webhooks/:id/${action}`, async (c) => {
    const id = webhookId(c);
    await updateWebhook(c.get("db"), c.get("account").id, id, { active });
    return done(c, `${PATH}/${id}`, {
      kind: "success",
      text: active ? "Webhook resumed: new events are delivered again." : "Webhook paused: no deliveries are made until it is resumed.",
    });
  });
}

webhooksPages.post("/webhooks/:id/rotate-secret", async (c) => {
  const id = webhookId(c);
  const { row } = await updateWebhook(c.get("db"), c.get("account").id, id, { rotate_secret: true });
  await revealOnce(c, { label: "New signing secret of the webhook", value: row.secret, note: "Requests are signed with it from now on; the previous secret no longer signs them." });
  return done(c, `${PATH}/${id}`, { kind: "success", text: "Signing secret rotated." });
});

webhooksPages.post("/webhooks/:id/delete", async (c) => {
  await deleteWebhook(c.get("db"), c.get("account").id, webhookId(c));
  return done(c, PATH, { kind: "success", text: "Webhook deleted, with its delivery history." });
});

webhooksPages.post("/webhooks/:id/deliveries/:deliveryId/redeliver", async (c) => {
  const id = webhookId(c);
  const deliveryId = parseId(c.req.param("deliveryId"));
  if (deliveryId === null) return c.notFound();
  const result = await attempt(() => redeliver(c.get("db"), c.get("pipeline"), c.get("account").id, id, deliveryId));
  const back = `${PATH}/${id}`;
  if (!result.ok) return done(c, back, { kind: "error", text: result.message ?? "The delivery could not be sent again." });
  return done(c, back, { kind: "success", text: `Delivery #${deliveryId} is being sent again.` });
});

// ---- Components -------------------------------------------------------------------------

function WebhookForm(props: { action: string; csrf: string; values: FormValues; errors: ValidationErrors; withSecret?: boolean; submit: string }) {
  const { values, errors } = props;
  return (
    <form method="post" action={props.action} novalidate class="stacked">
      <CsrfField token={props.csrf} />
      <Field name="url" label={LABELS.url} type="url" value={text(values, "url")} errors={errors} required hint="An http(s) URL of your shop that answers 2xx" />
      <CheckboxGroup name="events" label={LABELS.events} errors={errors} checked={(values.events as string[]) ?? []} options={EVENT_TYPES.map((t) => ({ value: t, label: t }))} />
      {props.withSecret ? (
        <>
          <Field name="secret" label={LABELS.secret} type="password" value={text(values, "secret")} errors={errors} autocomplete="off" hint="Optional: 16 to 255 characters of your own; left empty, one is generated" />
          <fieldset>
            <legend>State</legend>
            <Checkbox name="active" label="Active: deliver events from now on" checked={text(values, "active") === "true"} />
          </fieldset>
        </>
      ) : null}
      <button type="submit">{props.submit}</button>
    </form>
  );
}

type Delivery = { row: DeliveryRow; attempts: AttemptRow[] };

function WebhookPage({ view }: { view: WebhookView }) {
  const w = view.webhook;
  const base = `${PATH}/${w.id}`;
  const values: FormValues = view.values ?? { url: w.url, events: w.events };
  const attemptsOf = new Map<number, AttemptRow[]>();
  for (const a of view.deliveries.attempts) attemptsOf.set(a.deliveryId, [...(attemptsOf.get(a.deliveryId) ?? []), a]);
  const deliveries: Delivery[] = view.deliveries.rows.map((row) => ({ row, attempts: attemptsOf.get(row.delivery.id) ?? [] }));
  return (
    <>
      <nav aria-label="Breadcrumb" class="breadcrumb">
        <a href={PATH}>Webhooks</a> / <span aria-current="page">{w.url}</span>
      </nav>
      <hgroup>
        <h1>Webhook to {w.url}</h1>
        <p>
          {w.active ? <Badge tone="green">Active</Badge> : <Badge tone="grey">Paused</Badge>} · created <LocalTime iso={w.createdAt} />
        </p>
      </hgroup>
      <SecretOnce revealed={view.revealed} />
      <div class="page-actions">
        {w.active ? (
          <PostButton action={`${base}/pause`} csrf={view.csrf} variant="secondary" label="Pause" ariaLabel="Pause the webhook" />
        ) : (
          <PostButton action={`${base}/resume`} csrf={view.csrf} label="Resume" ariaLabel="Resume the webhook" />
        )}
        <PostButton action={`${base}/rotate-secret`} csrf={view.csrf} variant="secondary" label="Rotate signing secret" />
        <details class="confirm">
          <summary role="button" class="danger outline">
            Delete…
          </summary>
          <p>The subscription and its delivery history are deleted. Nothing more is sent to {w.url}.</p>
          <PostButton action={`${base}/delete`} csrf={view.csrf} variant="danger" label="Delete the webhook" />
        </details>
      </div>

      <section aria-labelledby="edit-heading">
        <h2 id="edit-heading">Endpoint and events</h2>
        <WebhookForm action={base} csrf={view.csrf} values={values} errors={view.errors ?? {}} submit="Save webhook" />
      </section>

      <section aria-labelledby="deliveries-heading">
        <h2 id="deliveries-heading">Deliveries</h2>
        <form method="get" action={base} class="search-row">
          <SelectField
            name="status"
            label="Show"
            value={view.status ?? ""}
            options={[{ value: "", label: "Every delivery" }, ...DELIVERY_STATUSES.map((s) => ({ value: s, label: DELIVERY_LOOK[s].label }))]}
          />
          <button type="submit" class="secondary">
            Show
          </button>
        </form>
        {deliveries.length === 0 ? (
          <p class="muted">{view.status ? "No delivery in this status." : "No deliveries yet: each event of the chosen types is delivered here as it happens."}</p>
        ) : (
          <DataTable<Delivery>
            caption="Deliveries, newest first, with every attempt"
            rows={deliveries}
            columns={[
              { header: "Delivery", cell: ({ row }) => `#${row.delivery.id}` },
              { header: "Event", cell: ({ row }) => row.event.type },
              { header: "Status", cell: ({ row }) => <Badge tone={DELIVERY_LOOK[row.delivery.status].tone}>{DELIVERY_LOOK[row.delivery.status].label}</Badge> },
              {
                header: "Attempts",
                cell: ({ attempts }) =>
                  attempts.length === 0 ? (
                    "none yet"
                  ) : (
                    <ol class="attempts">
                      {attempts.map((a) => (
                        <li>
                          <LocalTime iso={a.createdAt} /> · {a.statusCode === null ? "no answer" : `HTTP ${a.statusCode}`} · {a.durationMs} ms
                          {a.error ? <span class="response"> · {a.error}</span> : null}
                        </li>
                      ))}
                    </ol>
                  ),
              },
              { header: "Next attempt", cell: ({ row }) => (row.delivery.status === "pending" ? <LocalTime iso={row.delivery.leaseUntil} /> : orDash(null)) },
              {
                header: "Actions",
                cell: ({ row }) =>
                  row.delivery.status === "delivered" || row.delivery.status === "failed" ? (
                    <PostButton
                      action={`${base}/deliveries/${row.delivery.id}/redeliver`}
                      csrf={view.csrf}
                      label="Redeliver"
                      ariaLabel={`Redeliver delivery #${row.delivery.id}`}
                      disabled={!w.active}
                    />
                  ) : (
                    "—"
                  ),
              },
            ]}
          />
        )}
        <Pagination path={base} query={view.query} noun={{ one: "delivery", many: "deliveries" }} window={{ page: view.page, perPage: PER_PAGE, total: view.deliveries.total, shown: deliveries.length }} />
        {!w.active ? <FormError messages={["Resume the webhook to redeliver."]} /> : null}
      </section>
    </>
  );
}
