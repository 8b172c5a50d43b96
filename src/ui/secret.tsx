// A secret shown once (src/console/reveal.ts hands it over): in a read-only field that can be
// selected and copied, with the warning that it will not be shown again.
/** A secret to show once: what it is, its value, and a word on where it is used. */
export type Revealed = { label: string; value: string; note?: string };

export function SecretOnce({ revealed }: { revealed: Revealed | undefined }) {
  if (!revealed) return null;
  return (
    <article class="secret-once" aria-labelledby="secret-once-heading">
      <h2 id="secret-once-heading">{revealed.label}</h2>
      <p>
        <strong>Copy it now: it is not shown again.</strong> {revealed.note ?? ""}
      </p>
      <label for="secret-once-value">{revealed.label}</label>
      <input id="secret-once-value" type="text" readonly value={revealed.value} autocomplete="off" spellcheck={false} />
    </article>
  );
}
