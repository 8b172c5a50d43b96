// htmx asks for a fragment by naming its target; the same handler then renders just that part.
import type { Context } from "hono";

export function wantsFragment(c: Context, id: string): boolean {
  return c.req.header("hx-request") === "true" && (c.req.header("hx-target") ?? "").endsWith(`#${id}`);
}
