// An account's deletion (src/shards/delete.ts) as the operator's API answers it.
import type { DeletionRow } from "../shards/delete";

export function presentDeletion(d: DeletionRow) {
  return {
    account_id: d.accountId,
    shard: d.shard,
    phase: d.phase,
    done: d.phase === "done",
    rows_deleted: d.rowsDeleted,
    objects_deleted: d.objectsDeleted,
    open_work: d.openWork,
    started_at: d.startedAt,
    finished_at: d.finishedAt,
  };
}
