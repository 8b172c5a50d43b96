// A moment in the viewer's time zone: the server writes UTC (what readers without JavaScript see),
// and public/console/console.js rewrites it in the browser's zone, keeping UTC in the title.
export function utcText(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return `${d.toISOString().slice(0, 10)} ${d.toISOString().slice(11, 16)} UTC`;
}

export function LocalTime({ iso }: { iso: string | null | undefined }) {
  if (!iso) return <span class="muted">—</span>;
  return (
    <time datetime={iso} data-local="">
      {utcText(iso)}
    </time>
  );
}
