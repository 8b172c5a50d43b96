// An account's move between shards (src/shards/move.ts) as the operator's API answers it.
import type { MoveRow } from "../shards/move";

export function presentMove(m: MoveRow) {
  return {
    account_id: m.accountId,
    from_shard: m.fromShard,
    to_shard: m.toShard,
    phase: m.phase,
    done: m.phase === "done",
    rows_copied: m.rowsCopied,
    rows_deleted: m.rowsDeleted,
    started_at: m.startedAt,
    finished_at: m.finishedAt,
  };
}
