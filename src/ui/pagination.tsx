// Previous / next page links that keep every other query parameter (the URL holds the view).
import { count, many, type Noun } from "../lib/plural";
export type PageWindow = { page: number; perPage: number; total: number; shown: number };

export function pageHref(path: string, query: URLSearchParams, page: number): string {
  const params = new URLSearchParams(query);
  params.delete("page");
  if (page > 1) params.set("page", String(page));
  const qs = params.toString();
  return qs ? `${path}?${qs}` : path;
}

/** `noun` is what is listed, by its singular ("order"): "1–1 of 1 order", "1–20 of 21 orders". */
export function Pagination({ path, query, window: w, noun }: { path: string; query: URLSearchParams; window: PageWindow; noun: Noun }) {
  const lastPage = Math.max(1, Math.ceil(w.total / w.perPage));
  const from = w.shown ? (w.page - 1) * w.perPage + 1 : 0;
  const to = w.shown ? from + w.shown - 1 : 0;
  return (
    <nav class="pagination" aria-label={`Pages of ${many(noun)}`}>
      <p>
        {w.total === 0 ? `No ${many(noun)}` : `${from}–${to} of ${count(w.total, noun)}`} · page {w.page} of {lastPage}
      </p>
      <ul>
        <li>
          {w.page > 1 ? (
            <a href={pageHref(path, query, w.page - 1)} rel="prev">
              ← Newer
            </a>
          ) : null}
        </li>
        <li>
          {w.page < lastPage ? (
            <a href={pageHref(path, query, w.page + 1)} rel="next">
              Older →
            </a>
          ) : null}
        </li>
      </ul>
    </nav>
  );
}
