// The console's error pages: the same error type as the API (ApiError), rendered as a page. An
// unknown page and another account's order are the same 404 page, word for word.
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import type { AppEnv } from "../env";
import { ApiError, isAccountMoving } from "../lib/errors";

type Shown = { status: 403 | 404 | 409 | 413 | 422 | 429 | 500 | 503; title: string; text: string };

function shown(err: Error): Shown {
  if (err instanceof ApiError || err instanceof HTTPException) {
    const status = err.status;
    // The API's sentence, or (a validation error no form shows beside its field) its field messages.
    const detail = err instanceof ApiError ? (err.detail?.error ?? (Object.values(err.detail?.errors ?? {}).flat().join(" ") || undefined)) : undefined;
    if (status === 404) return NOT_FOUND;
    if (status === 403) return { status, title: "Request refused", text: detail ?? "This request was refused." };
    if (status === 413) return { status, title: "Too large", text: detail ?? err.message };
    if (status === 429) return { status, title: "Too many requests", text: detail ?? "Too many requests; wait a minute and try again." };
    // The account is moving (src/shards/move.ts): the API's sentence; nothing was changed.
    if (status === 503) return { status, title: "Try again in a moment", text: detail ?? "This cannot be done right now; try again in a moment." };
    if (status === 409 || status === 422) return { status, title: status === 409 ? "Not possible now" : "Not accepted", text: detail ?? err.message };
  }
  return { status: 500, title: "Something went wrong", text: "Something went wrong on our side. Please try again in a moment." };
}

const NOT_FOUND: Shown = {
  status: 404,
  title: "Page not found",
  text: "There is nothing at this address, or it is not yours to see. Check the link, or go back to the list.",
};

function ErrorPage({ title, text, status }: Shown) {
  return (
    <section class="error-page">
      <hgroup>
        <h1>{title}</h1>
        <p>Error {status}</p>
      </hgroup>
      <p>{text}</p>
    </section>
  );
}

export function renderError(err: Error, c: Context<AppEnv>) {
  // A write that passed the session check just before the move froze the account: the freeze's triggers refused it.
  if (isAccountMoving(err)) err = ApiError.accountMoving();
  const page = shown(err);
  if (page.status === 500) {
    console.error(JSON.stringify({ level: "error", requestId: c.get("requestId"), path: c.req.path, error: String(err), stack: err.stack }));
  }
  if (err instanceof ApiError && err.headers) for (const [k, v] of Object.entries(err.headers)) c.header(k, v);
  c.status(page.status);
  // htmx swaps every answer but a 204 or 304 into the part it asked for: the error takes that part's
  // place, keeping its id (a second try then finds it), instead of a whole page inside the page.
  const part = c.req.header("hx-request") === "true" ? /#([\w-]+)$/.exec(c.req.header("hx-target") ?? "")?.[1] : undefined;
  if (part) {
    return c.html(
      <div id={part}>
        <p class="callout" role="alert">
          <strong>{page.title}:</strong> {page.text}
        </p>
      </div>,
    );
  }
  return c.render(<ErrorPage {...page} />, { title: page.title });
}

export function renderNotFound(c: Context<AppEnv>) {
  c.status(404);
  return c.render(<ErrorPage {...NOT_FOUND} />, { title: NOT_FOUND.title });
}
