// A data table: a caption for screen readers, column headers, and a wrapper that scrolls sideways
// on a narrow screen (keyboard users reach it with Tab: it is a focusable, labelled region).
import type { Child } from "hono/jsx";

export type Column<T> = {
  header: string;
  cell: (row: T) => Child;
  numeric?: boolean;
  /** A sortable column: its header links here (the list sorted by it), aria-sort says how it is sorted now. */
  sort?: { href: string; sorted: "ascending" | "descending" | "none" };
};

export function DataTable<T>({ caption, columns, rows, id }: { caption: string; columns: Column<T>[]; rows: T[]; id?: string }) {
  return (
    <div class="table-wrap" role="region" aria-label={caption} tabindex={0} id={id}>
      <table class="striped">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c) => (
              <th scope="col" class={c.numeric ? "numeric" : undefined} aria-sort={c.sort?.sorted}>
                {c.sort ? <a href={c.sort.href}>{c.header}</a> : c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr>
              {columns.map((c) => (
                <td class={c.numeric ? "numeric" : undefined}>{c.cell(row)}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
