// A supplier's return terms (supplier_return_settings; none stored: the defaults): whether it
// authorises returns in advance (then with its return address), its return window in days after the
// last shipment, and how long it may take to answer before Needs attention lists the return.
import { and, eq } from "drizzle-orm";
import type { Db } from "../db";
import { DEFAULT_RETURN_WINDOW_DAYS, supplierReturnSettings, suppliers } from "../db/schema";
import { ApiError } from "../lib/errors";
import { isoMicro } from "../lib/time";

export type ReturnSettings = { auto_authorise: boolean; return_address: string | null; window_days: number; answer_within_hours: number | null };
/** Fields left out (undefined) keep their value; null clears one (the console's form: an emptied field). */
export type ReturnSettingsInput = Partial<{ auto_authorise: boolean; return_address: string | null; window_days: number; answer_within_hours: number | null }>;

export async function getReturnSettings(db: Db, accountId: number, supplierId: number): Promise<ReturnSettings> {
  const [row] = await db
    .select({ id: suppliers.id, s: supplierReturnSettings })
    .from(suppliers)
    .leftJoin(supplierReturnSettings, eq(supplierReturnSettings.supplierId, suppliers.id))
    .where(and(eq(suppliers.id, supplierId), eq(suppliers.accountId, accountId)));
  if (!row) throw ApiError.notFound(`Supplier with id '${supplierId}' not found`);
  return {
    auto_authorise: row.s?.autoAuthorise ?? false,
    return_address: row.s?.returnAddress ?? null,
    window_days: row.s?.windowDays ?? DEFAULT_RETURN_WINDOW_DAYS,
    answer_within_hours: row.s?.answerWithinHours ?? null,
  };
}

/** Saves the fields given; auto_authorise needs a return address (given or kept), else a 422 naming it. */
export async function saveReturnSettings(db: Db, accountId: number, supplierId: number, input: ReturnSettingsInput): Promise<ReturnSettings> {
  const now = getReturnSettings(db, accountId, supplierId);
  const merged: ReturnSettings = { ...(await now), ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined)) };
  if (merged.auto_authorise && !merged.return_address) throw ApiError.validation({ return_address: ["The return_address field is required when auto_authorise is true."] });
  const values = {
    autoAuthorise: merged.auto_authorise,
    returnAddress: merged.return_address,
    windowDays: merged.window_days,
    answerWithinHours: merged.answer_within_hours,
    updatedAt: isoMicro(),
  };
  await db
    .insert(supplierReturnSettings)
    .values({ supplierId, accountId, ...values })
    .onConflictDoUpdate({ target: supplierReturnSettings.supplierId, set: values });
  return merged;
}
