// While an account moves between shards (frozen, then leaving) or is being deleted (leaving), its
// rows refuse every write (the freeze triggers of drizzle/0015 and 0021). A statement over the whole
// shard that would write one of them fails as a whole, for every account: the sweepers, the event
// publishing and the cleanups leave those accounts' rows out, and take them up where the account
// lives once it has moved. Reads accounts_moving_idx, empty while no account moves.
import { sql, type SQL } from "drizzle-orm";

/**
 * The account (a column or expression naming its id, of the outer table: accounts has no account_id)
 * is not moving or being deleted: a probe of the partial index per row, as the freeze triggers do
 * (a search, never a scan, and no row read while no account moves).
 */
export const notMoving = (accountId: string | SQL) =>
  sql`NOT EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE accounts.id = ${typeof accountId === "string" ? sql.raw(accountId) : accountId} AND accounts.moving IS NOT NULL)`;
