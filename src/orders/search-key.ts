// How order_search_keys keys a value, on its own: the contract (orders.schemas.ts) normalises a
// search with it, and the list's query (list.query.ts) reads what the contract validated.

/**
 * A value or a search as order_search_keys keys it (drizzle/0023_order_search.sql): spaces, tabs
 * and line breaks dropped, ASCII letters lower-cased (as SQLite's lower(); other letters as sent).
 */
export function searchKey(text: string): string {
  return text.replace(/[ \t\n\r]/g, "").replace(/[A-Z]/g, (c) => c.toLowerCase());
}
