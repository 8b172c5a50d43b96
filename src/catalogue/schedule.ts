// Feed schedules: an interval between pulls. The cron trigger ticks every 5 minutes and pulls the
// feeds whose next_import_at has come, then moves it on by the interval.

export const MIN_SCHEDULE_MINUTES = 15;
export const MAX_SCHEDULE_MINUTES = 30 * 24 * 60;

const ALIASES: Record<string, number> = { hourly: 60, daily: 24 * 60, weekly: 7 * 24 * 60 };
const UNITS: Record<string, number> = { m: 1, h: 60, d: 24 * 60 };

/** "hourly", "daily", "weekly" or a number with m, h or d ("30m", "6h", "2d"); null if not a valid schedule. */
export function scheduleMinutes(schedule: string): number | null {
  const s = schedule.trim().toLowerCase();
  let minutes = ALIASES[s];
  if (minutes === undefined) {
    const m = /^(\d{1,5})\s*([mhd])$/.exec(s);
    if (!m) return null;
    minutes = Number(m[1]) * UNITS[m[2]];
  }
  return minutes >= MIN_SCHEDULE_MINUTES && minutes <= MAX_SCHEDULE_MINUTES ? minutes : null;
}
