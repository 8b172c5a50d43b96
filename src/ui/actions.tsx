// A state-changing button: a small POST form of its own with the CSRF field (works without
// JavaScript; the handler redirects back with the outcome). `fields` travel as hidden inputs.
import type { Child } from "hono/jsx";
import { CsrfField } from "./field";

export function PostButton(props: {
  action: string;
  csrf: string;
  label: Child;
  fields?: Record<string, string | number>;
  /** Names the button for assistive technology when its visible label is short ("↑"). */
  ariaLabel?: string;
  variant?: "primary" | "secondary" | "danger";
  disabled?: boolean;
}) {
  const cls = props.variant === "danger" ? "danger outline" : props.variant === "secondary" ? "secondary outline" : undefined;
  return (
    <form method="post" action={props.action} class="inline-action">
      <CsrfField token={props.csrf} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={String(value)} />
      ))}
      <button type="submit" class={cls} aria-label={props.ariaLabel} disabled={props.disabled}>
        {props.label}
      </button>
    </form>
  );
}
