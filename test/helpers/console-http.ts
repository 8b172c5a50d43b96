// The console over HTTP inside workerd, as a browser talks to it: a cookie jar, the sign-in form
// (its double-submit cookie first, then the POST from our own origin).
import { exports } from "cloudflare:workers";
import { BASE } from "./http";

export type Jar = Map<string, string>;

export async function send(path: string, init: RequestInit & { jar?: Jar } = {}, fetcher: (r: Request) => Promise<Response> = (r) => exports.default.fetch(r)) {
  const headers = new Headers(init.headers);
  if (init.jar?.size) headers.set("cookie", [...init.jar].map(([k, v]) => `${k}=${v}`).join("; "));
  const res = await fetcher(new Request(`${BASE}${path}`, { ...init, headers, redirect: "manual" }));
  for (const cookie of res.headers.getSetCookie()) {
    const [pair] = cookie.split(";");
    const [name, value] = [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)];
    if (value) init.jar?.set(name, value);
    else init.jar?.delete(name);
  }
  return res;
}

/** GET the sign-in page (the double-submit cookie), then POST the form from our own origin. */
export async function signIn(fields: Record<string, string>, jar: Jar = new Map(), fetcher?: (r: Request) => Promise<Response>, address = "192.0.2.10") {
  return signInTo("/console", fields, jar, fetcher, address);
}

/** signIn for any area: the shop console (/console), the supplier portal (/supplier), the operator (/operator). */
export async function signInTo(area: string, fields: Record<string, string>, jar: Jar = new Map(), fetcher?: (r: Request) => Promise<Response>, address = "192.0.2.10") {
  await send(`${area}/sign-in`, { jar, headers: { "cf-connecting-ip": address } }, fetcher);
  const body = new URLSearchParams({ _csrf: jar.get("__Host-oi_signin_csrf") ?? "", ...fields });
  const res = await send(`${area}/sign-in`, { method: "POST", body, jar, headers: { origin: BASE, "cf-connecting-ip": address, "content-type": "application/x-www-form-urlencoded" } }, fetcher);
  return { res, jar };
}

/** The CSRF token of a page's forms. */
export const csrfOf = (html: string) => /name="_csrf" value="([0-9a-f]{64})"/.exec(html)![1];

/** A form POSTed from our own origin, as the browser sends it. */
export const postForm = (path: string, jar: Jar, fields: Record<string, string>) =>
  send(path, { method: "POST", jar, body: new URLSearchParams(fields), headers: { origin: BASE, "content-type": "application/x-www-form-urlencoded" } });

/** A page: its status and HTML. */
export async function getPage(path: string, jar: Jar) {
  const res = await send(path, { jar });
  return { status: res.status, html: await res.text() };
}
