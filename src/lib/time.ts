// Timestamps as the original service writes them: ISO 8601 UTC with six fractional digits.
// Stored in the same form, so text comparison in SQL orders them correctly.

export function isoMicro(date: Date = new Date()): string {
  return date.toISOString().replace(/\.(\d{3})Z$/, ".$1000Z");
}

/** Parses an ISO 8601 date or date-time; a date alone means the start (or, with endOfDay, the end) of that UTC day. */
export function parseIsoFilter(value: string, endOfDay = false): string | null {
  const trimmed = value.trim();
  const dateOnly = /^\d{4}-\d{2}-\d{2}$/.test(trimmed);
  if (!dateOnly && !/^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i.test(trimmed)) {
    return null;
  }
  // Date.parse rolls 2026-02-30T... over into March instead of failing.
  if (!isCalendarDate(trimmed.slice(0, 10))) return null;
  let normalised = trimmed.replace(" ", "T");
  if (dateOnly) normalised += endOfDay ? "T23:59:59.999Z" : "T00:00:00.000Z";
  else if (!/(Z|[+-]\d{2}:?\d{2})$/i.test(normalised)) normalised += "Z";
  const ms = Date.parse(normalised);
  if (Number.isNaN(ms)) return null;
  const iso = isoMicro(new Date(ms));
  // Keep microseconds the client sent, so "<= ...123456Z" is exact.
  const micro = /\.(\d{4,6})\d*(Z|[+-])/i.exec(normalised);
  if (micro && !dateOnly && /Z$/i.test(normalised)) return iso.replace(/\.\d{6}Z$/, `.${micro[1].padEnd(6, "0")}Z`);
  return dateOnly && endOfDay ? iso.replace(/\.999000Z$/, ".999999Z") : iso;
}

/** YYYY-MM-DD that exists in the calendar. */
export function isCalendarDate(ymd: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(ymd);
  if (!m) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

/** The instant one microsecond after an ISO timestamp as isoMicro writes it ("> t" is ">= nextMicro(t)"). */
export function nextMicro(iso: string): string {
  const micro = Number(iso.slice(20, 26)) + 1;
  if (micro < 1_000_000) return `${iso.slice(0, 20)}${String(micro).padStart(6, "0")}Z`;
  return isoMicro(new Date(Date.parse(`${iso.slice(0, 19)}Z`) + 1000)).replace(/\.\d{6}Z$/, ".000000Z");
}
