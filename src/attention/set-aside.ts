// Setting a Needs attention item aside: dismissed until its cause recurs (a failure of the same
// cause after the dismissal brings it back), or snoozed for a day or a week (hidden until then,
// whatever happens meanwhile). One row per account and item key; the latest choice wins.
import { sql, type SQL } from "drizzle-orm";
import { toStatement, type Db } from "../db";
import { ApiError } from "../lib/errors";
import { isoMicro } from "../lib/time";

export const SET_ASIDE_CHOICES = ["dismiss", "snooze_day", "snooze_week"] as const;
export type SetAsideChoice = (typeof SET_ASIDE_CHOICES)[number];

const SNOOZE_MS: Record<Exclude<SetAsideChoice, "dismiss">, number> = { snooze_day: 24 * 60 * 60 * 1000, snooze_week: 7 * 24 * 60 * 60 * 1000 };

/** The keys the page builds (attention.service.ts): a section's name, then ids and the cause's words, all short. */
const ITEM_KEY = /^(blocked|line|send|pickup|overdue|cancellation|webhook|shop|feed|invoice|return):[A-Za-z0-9_:.-]{1,150}$/;

/**
 * A condition over an item (its key and the time of its newest failure, as SQL over the item's
 * statement): true unless a person set it aside and it is still so — snoozed until a time not yet
 * come, or dismissed no earlier than its newest failure.
 */
export function notSetAside(accountId: number, now: string, key: SQL, latest: SQL): SQL {
  return sql`NOT EXISTS (SELECT 1 FROM attention_set_asides x WHERE x.account_id = ${accountId} AND x.item_key = ${key}
    AND (x.snoozed_until > ${now} OR (x.snoozed_until IS NULL AND x.dismissed_at >= ${latest})))`;
}

/** Sets an item aside; returns until when it is snoozed (null: dismissed until its cause recurs). Bad input is a 422 naming the field. */
export async function setAside(db: Db, accountId: number, itemKey: string, choice: string, now = new Date()): Promise<{ snoozedUntil: string | null }> {
  const errors: Record<string, string[]> = {};
  if (!ITEM_KEY.test(itemKey)) errors.item = ["The item field must name an item of Needs attention."];
  if (!(SET_ASIDE_CHOICES as readonly string[]).includes(choice)) errors.choice = [`The selected choice is invalid: it must be one of ${SET_ASIDE_CHOICES.join(", ")}.`];
  if (Object.keys(errors).length) throw ApiError.validation(errors);
  const at = isoMicro(now);
  const snoozedUntil = choice === "dismiss" ? null : isoMicro(new Date(now.getTime() + SNOOZE_MS[choice as Exclude<SetAsideChoice, "dismiss">]));
  await toStatement(
    db,
    sql`INSERT INTO attention_set_asides (account_id, item_key, dismissed_at, snoozed_until) VALUES (${accountId}, ${itemKey}, ${at}, ${snoozedUntil})
      ON CONFLICT (account_id, item_key) DO UPDATE SET dismissed_at = excluded.dismissed_at, snoozed_until = excluded.snoozed_until`,
  ).run();
  return { snoozedUntil };
}
