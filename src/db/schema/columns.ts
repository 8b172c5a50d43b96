// Column types shared by the schema files.
import { customType } from "drizzle-orm/sqlite-core";
import { numberToUnits, unitsToNumber } from "../../lib/money";

/**
 * An exact amount of money: INTEGER ten-thousandths in D1, a plain number in the application
 * (src/lib/money.ts). Raw SQL that writes or reads these columns converts itself (json_each inserts,
 * event payloads): search for numberToUnits and `/ 10000.0`.
 */
export const money = customType<{ data: number; driverData: number }>({
  dataType: () => "integer",
  toDriver: (value) => numberToUnits(value),
  fromDriver: (units) => unitsToNumber(Number(units)),
});
