// While an account moves between shards (frozen, then leaving) or is being deleted (leaving), its
// rows refuse every write (the freeze triggers of drizzle/0015 and 0021). A statement over the whole
// shard that would write one of them fails as a whole, for every account: the sweepers, the event
// publishing and the cleanups leave those accounts' rows out, and take them up where the account
// lives once it has moved. Reads accounts_moving_idx, empty while no account moves.
import { sql, type SQL } from "drizzle-orm";

/** The account (a column or expression naming its id) is not moving or being deleted. */
export const notMoving = (accountId: string | SQL) =>
  sql`${typeof accountId === "string" ? sql.raw(accountId) : accountId} NOT IN (SELECT id FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL)`;
