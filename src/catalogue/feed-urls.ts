// A feed url as we show it: never with a login. New feeds cannot carry one (feeds.schemas.ts sends
// it to credentials), but rows stored before that (https://user:password@host/…) still do, and keep
// working: the login is sent as Basic auth, and every face shows the url without it.
// docs/catalogue.md, "A feed's login".
import type { FeedCredentials } from "../db/schema";

const parse = (url: string): URL | null => {
  try {
    return new URL(url);
  } catch {
    return null;
  }
};

/** The url without its user name and password (text that is no URL is given back as it is). */
export function withoutLogin(url: string): string;
export function withoutLogin(url: string | null): string | null;
export function withoutLogin(url: string | null): string | null {
  const u = url === null ? null : parse(url);
  if (!u || (!u.username && !u.password)) return url;
  u.username = "";
  u.password = "";
  return u.toString();
}

/** The login a stored url carries (a feed from before logins went to credentials), decoded; null without one. */
export function urlLogin(url: string | null): { username: string; password: string } | null {
  const u = url === null ? null : parse(url);
  if (!u || (!u.username && !u.password)) return null;
  return { username: decodeURIComponent(u.username), password: decodeURIComponent(u.password) };
}

/** The feed's login as it may be shown: its credentials, or a stored url's user (its password never). */
export function shownLogin(feed: { url: string | null; credentials: FeedCredentials | null }): FeedCredentials | null {
  if (feed.credentials) return feed.credentials;
  const legacy = urlLogin(feed.url);
  return legacy ? { username: legacy.username, authentication: "password", host_key_fingerprint: null } : null;
}
