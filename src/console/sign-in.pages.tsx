// Signing in and out of the three areas. A sign-in checks the same credentials as the API (an
// account's API key, a supplier key, the admin token), and its failures count against the same
// per-address limit as failed API authentication (src/middleware/rate-limit.ts).
import { z } from "@hono/zod-openapi";
import { Hono, type Context } from "hono";
import { authenticate } from "../accounts/accounts.service";
import type { AppEnv } from "../env";
import { ApiError, isAccountMoving, type ValidationErrors } from "../lib/errors";
import { field, validateForm } from "../lib/validation";
import { verifyAdminToken } from "../middleware/auth";
import { countAuthFailure, refuseBlockedAddress } from "../middleware/rate-limit";
import { findSupplierKey } from "../middleware/supplier-auth";
import { MovedAway, onAccountShard, onSupplierKeyShard } from "../shards/request";
import { CsrfField, Field, FormError } from "../ui/field";
import { safeNext, type Area } from "./areas";
import { currentSession, requireSession, sessionCookie, sessionSecret, startSession } from "./auth";
import { clearCookie, setFlash } from "./cookies";
import { checkSignInToken, originCheck, sessionToken, signInToken } from "./csrf";
import { endSession, type OpenedWith } from "../accounts/sign-in-sessions";

type SignInField = { name: string; label: string; type: "text" | "password"; autocomplete: string; inputmode?: "numeric" };

type SignInForm<S extends z.ZodType> = {
  heading: string;
  intro: string;
  fields: SignInField[];
  schema: S;
  /** The credential's owner, or the ApiError (401) that names what is wrong. */
  verify: (c: Context<AppEnv>, input: z.output<S>) => Promise<OpenedWith>;
  /** The message beside the secret field when the credentials are refused. */
  refusedField: string;
  refusedMessage: string;
};

const FORMS = {
  shop: {
    heading: "Sign in to the shop console",
    intro: "Use your account ID and one of the account's API keys (the operator issues them).",
    fields: [
      { name: "account_id", label: "Account ID", type: "text", autocomplete: "username", inputmode: "numeric" },
      { name: "api_key", label: "API key", type: "password", autocomplete: "current-password" },
    ],
    schema: z.object({
      account_id: z.preprocess((v) => (v === "" ? undefined : v), z.string().trim().regex(/^\d{1,15}$/, "The :attribute field must be a number.")),
      api_key: field.text(255),
    }),
    verify: async (c, input) => {
      // On the account's shard, where the session is then opened too.
      const { account } = await onAccountShard(c, input.account_id, async () => {
        const found = await authenticate(c.get("primaryDb"), input.api_key, input.account_id);
        // As in the API: a shard the account is leaving (a stale cache entry) is not where its session goes.
        if (found.moving === "leaving") throw new MovedAway();
        return found;
      });
      return { role: "shop", accountId: account.id, apiKeyId: account.apiKeyId };
    },
    refusedField: "api_key",
    refusedMessage: "The account ID and API key do not match an active key.",
  } satisfies SignInForm<z.ZodType<{ account_id: string; api_key: string }>>,
  supplier: {
    heading: "Sign in to the supplier portal",
    intro: "Use the supplier key the shop issued to you (it starts with osk_).",
    fields: [{ name: "supplier_key", label: "Supplier key", type: "password", autocomplete: "current-password" }],
    schema: z.object({ supplier_key: field.text(255) }),
    verify: async (c, input) => {
      const key = await onSupplierKeyShard(c, input.supplier_key, () => findSupplierKey(c.get("primaryDb"), input.supplier_key));
      return { role: "supplier", accountId: key.accountId, supplierKeyId: key.keyId };
    },
    refusedField: "supplier_key",
    refusedMessage: "This supplier key is not valid: it is unknown or revoked, or its supplier is deactivated.",
  } satisfies SignInForm<z.ZodType<{ supplier_key: string }>>,
  operator: {
    heading: "Sign in as the operator",
    intro: "Use the deployment's ADMIN_TOKEN (locally: in .dev.vars).",
    fields: [{ name: "admin_token", label: "Admin token", type: "password", autocomplete: "current-password" }],
    schema: z.object({ admin_token: field.text(1024) }),
    verify: async (c, input) => {
      verifyAdminToken(c.env.ADMIN_TOKEN!, input.admin_token);
      return { role: "operator", adminToken: c.env.ADMIN_TOKEN! };
    },
    refusedField: "admin_token",
    refusedMessage: "This admin token is not valid.",
  } satisfies SignInForm<z.ZodType<{ admin_token: string }>>,
};

function SignInPage(props: { area: Area; form: SignInForm<z.ZodType>; token: string; next: string; values: Record<string, string>; errors: ValidationErrors; formError?: string[] }) {
  const { form } = props;
  return (
    <section class="sign-in">
      <hgroup>
        <h1>{form.heading}</h1>
        <p>{form.intro}</p>
      </hgroup>
      <FormError messages={props.formError} />
      <form method="post" action={`${props.area.path}/sign-in`} novalidate>
        <CsrfField token={props.token} />
        <input type="hidden" name="next" value={props.next} />
        {form.fields.map((f) => (
          <Field
            name={f.name}
            label={f.label}
            type={f.type}
            autocomplete={f.autocomplete}
            inputmode={f.inputmode}
            required
            value={f.type === "password" ? "" : props.values[f.name]}
            errors={props.errors}
          />
        ))}
        <button type="submit">Sign in</button>
      </form>
    </section>
  );
}

const OPERATOR_OFF = "The operator pages are not enabled on this deployment: it has no ADMIN_TOKEN.";

export function signInPages(area: Area) {
  const form = FORMS[area.role] as SignInForm<z.ZodType>;
  const pages = new Hono<AppEnv>();
  const labels = Object.fromEntries(form.fields.map((f) => [f.name, f.label]));

  const render = (c: Context<AppEnv>, status: 200 | 401 | 422 | 429 | 503, state: { next: string; values?: Record<string, string>; errors?: ValidationErrors; formError?: string[] }) => {
    c.status(status);
    return c.render(
      <SignInPage area={area} form={form} token={signInToken(c)} next={state.next} values={state.values ?? {}} errors={state.errors ?? {}} formError={state.formError} />,
      { title: "Sign in" },
    );
  };

  pages.get("/sign-in", async (c) => {
    if (area.role === "operator" && !c.env.ADMIN_TOKEN) throw ApiError.notFound(OPERATOR_OFF);
    const next = safeNext(area, c.req.query("next"));
    if ((await currentSession(c, area)).session) return c.redirect(next, 303);
    return render(c, 200, { next });
  });

  pages.post("/sign-in", originCheck, async (c) => {
    if (area.role === "operator" && !c.env.ADMIN_TOKEN) throw ApiError.notFound(OPERATOR_OFF);
    await checkSignInToken(c);
    const body = await c.req.parseBody();
    const values = Object.fromEntries(form.fields.map((f) => [f.name, typeof body[f.name] === "string" ? (body[f.name] as string) : ""]));
    const next = safeNext(area, typeof body.next === "string" ? body.next : undefined);
    const checked = validateForm(form.schema, values, labels);
    if (!checked.ok) return render(c, 422, { next, values, errors: checked.errors });
    let opened: OpenedWith;
    try {
      refuseBlockedAddress(c);
      opened = await form.verify(c, checked.data).catch(async (error) => {
        throw error instanceof ApiError && error.status === 401 ? await countAuthFailure(c, error) : error;
      });
    } catch (error) {
      if (!(error instanceof ApiError) || (error.status !== 401 && error.status !== 429)) throw error;
      if (error.status === 429) c.header("Retry-After", error.headers?.["Retry-After"] ?? "60");
      const message = error.status === 429 ? "Too many failed sign-in attempts from your address. Wait a minute, then try again." : form.refusedMessage;
      // Said once, beside the secret field (aria-invalid points at it), not again above the form.
      return render(c, error.status, { next, values, errors: { [form.refusedField]: [message] } });
    }
    try {
      await startSession(c, area, opened);
    } catch (error) {
      // The account's move froze its rows (src/shards/move.ts): the session row cannot be written yet.
      if (!isAccountMoving(error)) throw error;
      const moving = ApiError.accountMoving();
      for (const [name, value] of Object.entries(moving.headers ?? {})) c.header(name, value);
      return render(c, 503, { next, values, formError: ["Your account is being moved to another database: signing in works again in a moment."] });
    }
    return c.redirect(next, 303);
  });

  pages.post("/sign-out", originCheck, requireSession(area), sessionToken, async (c) => {
    // requireSession has put the request on the session's shard.
    const secret = sessionSecret(c, area);
    if (secret) await endSession(c.get("db"), secret);
    clearCookie(c, sessionCookie(area));
    setFlash(c, { kind: "success", text: "You are signed out." });
    return c.redirect(`${area.path}/sign-in`, 303);
  });

  return pages;
}
