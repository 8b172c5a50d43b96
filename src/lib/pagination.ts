// Laravel's two pagination shapes, as the spec lists them: API-resource style for orders,
// plain paginate() for products. Links keep every other query parameter and set page.

export type PageRequest = { page: number; perPage: number };

export function offsetOf({ page, perPage }: PageRequest): number {
  return (page - 1) * perPage;
}

/** The absolute URL without query or trailing slash, as Laravel's request()->url(). */
function pathOf(url: URL): string {
  return `${url.origin}${url.pathname.replace(/\/+$/, "")}`;
}

function pageUrl(requestUrl: string, page: number): string {
  const url = new URL(requestUrl);
  const params = new URLSearchParams();
  for (const [k, v] of url.searchParams) if (k !== "page") params.append(k, v);
  params.append("page", String(page));
  return `${pathOf(url)}?${params.toString()}`;
}

function window(requestUrl: string, req: PageRequest, total: number, count: number) {
  const lastPage = Math.max(1, Math.ceil(total / req.perPage));
  const from = count > 0 ? offsetOf(req) + 1 : null;
  const to = count > 0 ? offsetOf(req) + count : null;
  const url = new URL(requestUrl);
  return {
    lastPage,
    from,
    to,
    path: pathOf(url),
    first: pageUrl(requestUrl, 1),
    last: pageUrl(requestUrl, lastPage),
    prev: req.page > 1 ? pageUrl(requestUrl, req.page - 1) : null,
    next: req.page < lastPage ? pageUrl(requestUrl, req.page + 1) : null,
  };
}

/** Laravel API resource collection (orders). */
export function resourcePage<T>(requestUrl: string, req: PageRequest, total: number, data: T[]) {
  const w = window(requestUrl, req, total, data.length);
  return {
    current_page: req.page,
    data,
    links: { first: w.first, last: w.last, prev: w.prev, next: w.next },
    meta: {
      current_page: req.page,
      from: w.from,
      last_page: w.lastPage,
      path: w.path,
      per_page: req.perPage,
      to: w.to,
      total,
    },
  };
}

/** Laravel paginate() (products). */
export function plainPage<T>(requestUrl: string, req: PageRequest, total: number, data: T[]) {
  const w = window(requestUrl, req, total, data.length);
  return {
    current_page: req.page,
    data,
    first_page_url: w.first,
    from: w.from,
    last_page: w.lastPage,
    last_page_url: w.last,
    next_page_url: w.next,
    path: w.path,
    per_page: req.perPage,
    prev_page_url: w.prev,
    to: w.to,
    total,
  };
}

/** A page below 1 or not a number is page 1, as in Laravel. */
export function pageParam(raw: string | undefined): number {
  if (raw === undefined || !/^\s*\d+\s*$/.test(raw)) return 1;
  const n = Number(raw);
  return Number.isSafeInteger(n) && n >= 1 ? Math.min(n, 1_000_000_000) : 1;
}
