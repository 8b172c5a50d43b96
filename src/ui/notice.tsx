// Messages around the content: the flash after an action, and empty states that say what to do.
import type { Child } from "hono/jsx";
import type { Flash } from "../env";

export function FlashMessage({ flash }: { flash: Flash | undefined }) {
  if (!flash) return null;
  return (
    <p class={`flash flash-${flash.kind}`} role={flash.kind === "error" ? "alert" : "status"}>
      {flash.text}
    </p>
  );
}

export function EmptyState({ title, children }: { title: string; children: Child }) {
  return (
    <article class="empty-state">
      <h3>{title}</h3>
      {children}
    </article>
  );
}
