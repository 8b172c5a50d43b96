// Form fields with their label and, beside them, the validation messages of the field (in the
// API's own words; see validateForm in src/lib/validation.ts). A field with errors is marked
// aria-invalid and points at its messages.
import type { Child } from "hono/jsx";
import type { ValidationErrors } from "../lib/errors";

type Common = { name: string; label: string; errors?: ValidationErrors; hint?: Child; id?: string };

function described(id: string, messages: string[] | undefined, hint: Child | undefined) {
  const ids = [messages?.length ? `${id}-error` : null, hint ? `${id}-hint` : null].filter(Boolean).join(" ");
  return { "aria-invalid": messages?.length ? "true" : undefined, "aria-describedby": ids || undefined };
}

function Messages({ id, messages, hint }: { id: string; messages?: string[]; hint?: Child }) {
  return (
    <>
      {hint ? <small id={`${id}-hint`}>{hint}</small> : null}
      {messages?.length ? (
        <small id={`${id}-error`} class="field-error">
          {messages.join(" ")}
        </small>
      ) : null}
    </>
  );
}

export function Field(
  props: Common & {
    type?: "text" | "password" | "search" | "date" | "number" | "email" | "url";
    value?: string | number | null;
    required?: boolean;
    autocomplete?: string;
    inputmode?: "numeric" | "decimal" | "text";
    step?: string;
    min?: string;
    max?: string;
    /** The id of a <datalist> of suggestions. */
    list?: string;
  },
) {
  const id = props.id ?? `field-${props.name}`;
  const messages = props.errors?.[props.name];
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <input
        id={id}
        name={props.name}
        type={props.type ?? "text"}
        value={props.value ?? ""}
        required={props.required}
        autocomplete={props.autocomplete}
        inputmode={props.inputmode}
        step={props.step}
        min={props.min}
        max={props.max}
        list={props.list}
        {...described(id, messages, props.hint)}
      />
      <Messages id={id} messages={messages} hint={props.hint} />
    </div>
  );
}

export function SelectField(
  props: Common & {
    value?: string;
    options: { value: string; label: string }[];
    /** htmx attributes (hx-post, hx-target …): a choice that changes the form around it at once. */
    enhance?: Record<`hx-${string}`, string>;
  },
) {
  const id = props.id ?? `field-${props.name}`;
  const messages = props.errors?.[props.name];
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <select id={id} name={props.name} {...props.enhance} {...described(id, messages, props.hint)}>
        {props.options.map((o) => (
          <option value={o.value} selected={o.value === (props.value ?? "")}>
            {o.label}
          </option>
        ))}
      </select>
      <Messages id={id} messages={messages} hint={props.hint} />
    </div>
  );
}

export function TextArea(props: Common & { value?: string | null; rows?: number; required?: boolean }) {
  const id = props.id ?? `field-${props.name}`;
  const messages = props.errors?.[props.name];
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      <textarea id={id} name={props.name} rows={props.rows ?? 6} required={props.required} spellcheck={false} {...described(id, messages, props.hint)}>
        {props.value ?? ""}
      </textarea>
      <Messages id={id} messages={messages} hint={props.hint} />
    </div>
  );
}

/** One of a few choices, all visible (a channel, an action type). */
export function RadioGroup(props: Common & { value?: string; options: { value: string; label: Child }[] }) {
  const id = props.id ?? `field-${props.name}`;
  const messages = props.errors?.[props.name];
  return (
    <fieldset class="radio-group" {...described(id, messages, props.hint)}>
      <legend>{props.label}</legend>
      {props.options.map((o) => (
        <label for={`${id}-${o.value}`}>
          <input id={`${id}-${o.value}`} type="radio" name={props.name} value={o.value} checked={o.value === props.value} />
          {o.label}
        </label>
      ))}
      <Messages id={id} messages={messages} hint={props.hint} />
    </fieldset>
  );
}

/** Several values of one parameter (statuses=a&statuses=b), as a fieldset of checkboxes. */
export function CheckboxGroup(props: Common & { options: { value: string; label: Child }[]; checked: string[]; scroll?: boolean }) {
  const id = props.id ?? `field-${props.name}`;
  const messages = props.errors?.[props.name];
  return (
    <fieldset class={props.scroll ? "checkbox-group scroll" : "checkbox-group"} {...described(id, messages, props.hint)}>
      <legend>{props.label}</legend>
      {props.options.map((o, i) => (
        <label for={`${id}-${i}`}>
          <input id={`${id}-${i}`} type="checkbox" name={props.name} value={o.value} checked={props.checked.includes(o.value)} />
          {o.label}
        </label>
      ))}
      <Messages id={id} messages={messages} hint={props.hint} />
    </fieldset>
  );
}

export function Checkbox({ name, label, checked, value = "true" }: { name: string; label: string; checked: boolean; value?: string }) {
  const id = `field-${name}`;
  return (
    <label for={id}>
      <input id={id} type="checkbox" name={name} value={value} checked={checked} />
      {label}
    </label>
  );
}

/** The hidden field every state-changing form carries (src/console/csrf.ts checks it). */
export function CsrfField({ token }: { token: string }) {
  return <input type="hidden" name="_csrf" value={token} />;
}

/** Errors that belong to no single field (a refused sign-in, a rate limit). */
export function FormError({ messages }: { messages?: string[] }) {
  if (!messages?.length) return null;
  return (
    <p class="form-error" role="alert">
      {messages.join(" ")}
    </p>
  );
}
