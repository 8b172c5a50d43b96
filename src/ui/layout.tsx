// The page frame of every console page: landmarks (header with the main navigation, main, footer),
// a skip link, the stylesheets and scripts served from the Worker's own assets, and the flash.
import type { Child } from "hono/jsx";
import type { Flash } from "../env";
import { CsrfField } from "./field";
import { FlashMessage } from "./notice";

export type NavItem = { href: string; label: string };

export type LayoutProps = {
  title: string;
  /** The area's name in the header: "Shop console", "Supplier portal", "Operator". */
  area: string;
  home: string;
  nav: NavItem[];
  /** The current path, to mark the current navigation item. */
  path: string;
  signedIn?: { label: string; csrfToken: string; signOutAction: string };
  flash?: Flash;
  children: Child;
};

function isCurrent(item: NavItem, path: string, nav: NavItem[]) {
  // The longest matching prefix wins, so /console/orders/1 marks "Orders", not the home item.
  const matches = nav.filter((n) => path === n.href || path.startsWith(`${n.href}/`));
  const best = matches.sort((a, b) => b.href.length - a.href.length)[0];
  return best?.href === item.href;
}

export function Layout(props: LayoutProps) {
  const htmxHeaders = props.signedIn ? { "hx-headers:inherited": JSON.stringify({ "X-CSRF-Token": props.signedIn.csrfToken }) } : {};
  return (
    <html lang="en" data-theme="light">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="htmx-config" content='{"includeIndicatorCSS": false}' />
        <title>{`${props.title} · ${props.area} · Order intake`}</title>
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <link rel="stylesheet" href="/console/pico.min.css" />
        <link rel="stylesheet" href="/console/console.css" />
        <script src="/console/htmx.min.js" defer></script>
        <script src="/console/console.js" defer></script>
      </head>
      <body {...htmxHeaders}>
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="site-header">
          <nav class="container" aria-label="Main">
            <ul>
              <li>
                <a href={props.home} class="brand">
                  <strong>Order intake</strong> <span class="area">{props.area}</span>
                </a>
              </li>
            </ul>
            <ul class="nav-items">
              {props.nav.map((item) => (
                <li>
                  <a href={item.href} aria-current={isCurrent(item, props.path, props.nav) ? "page" : undefined}>
                    {item.label}
                  </a>
                </li>
              ))}
              {props.signedIn ? (
                <li class="signed-in">
                  <span class="who">{props.signedIn.label}</span>
                  <form method="post" action={props.signedIn.signOutAction}>
                    <CsrfField token={props.signedIn.csrfToken} />
                    <button type="submit" class="secondary outline">
                      Sign out
                    </button>
                  </form>
                </li>
              ) : null}
            </ul>
          </nav>
        </header>
        <main id="main" class="container" tabindex={-1}>
          <FlashMessage flash={props.flash} />
          {props.children}
        </main>
        <footer class="container site-footer">
          <small>
            Times are shown in your time zone (UTC without JavaScript). API: <a href="/docs">documentation</a> ·{" "}
            <a href="/openapi.json">OpenAPI</a>
          </small>
        </footer>
      </body>
    </html>
  );
}
