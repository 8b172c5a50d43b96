// Queue messages of a moved account: a message names its shard when it is sent, and the account
// may have moved since. Before a shard's part of a batch runs, one statement finds the account of
// each message's row there and whether it is moving; a message whose account has left (or whose
// row is not on this shard but on another) is sent on to that shard once and acked here; one whose
// account is frozen mid-move waits (retried); one of an account being deleted is dropped. So no message runs on a shard that lost its rows,
// and none runs twice.
import { meteredD1 } from "../db/metrics";
import { isDeleted } from "./delete";
import { forgetAccount, shardOfAccount } from "./directory";
import { shardBinding, shardNumbers } from "./shards";
import type { Bindings } from "../env";
import { enqueue, type PipelineMessage } from "../lib/queue";

const MOVING_RETRY_SECONDS = 5;

/** The table and id a message's work is about (publish_events is a shard's own: none). */
function rowOf(body: PipelineMessage): [string, number] | null {
  switch (body.type) {
    case "route_order":
      return ["orders", body.orderId];
    case "rematch_account":
      return ["accounts", body.accountId];
    case "send_dispatch":
      return ["dispatches", body.dispatchId];
    // One account's dispatches (the route step hands them over per account): the first names it.
    case "send_dispatches":
      return ["dispatches", body.dispatchIds[0]];
    case "send_cancellation":
      return ["cancellations", body.cancellationId];
    case "send_return_notice":
      return ["return_notices", body.noticeId];
    case "deliver_webhook":
      return ["webhook_deliveries", body.deliveryId];
    case "write_back":
      return ["shop_write_backs", body.writeBackId];
    case "stock_sync":
      return ["stock_syncs", body.syncId];
    case "publish_events":
      return null;
  }
}

const LOOKUP = `WITH m(i, t, id) AS (SELECT key, value ->> 0, value ->> 1 FROM json_each(?1))
SELECT m.i AS i, a.id AS account_id, a.moving AS moving FROM m LEFT JOIN accounts a ON a.id = CASE m.t
  WHEN 'orders' THEN (SELECT account_id FROM orders WHERE id = m.id)
  WHEN 'accounts' THEN m.id
  WHEN 'dispatches' THEN (SELECT account_id FROM dispatches WHERE id = m.id)
  WHEN 'cancellations' THEN (SELECT account_id FROM cancellations WHERE id = m.id)
  WHEN 'webhook_deliveries' THEN (SELECT account_id FROM webhook_deliveries WHERE id = m.id)
  WHEN 'shop_write_backs' THEN (SELECT account_id FROM shop_write_backs WHERE id = m.id)
  WHEN 'stock_syncs' THEN (SELECT account_id FROM stock_syncs WHERE id = m.id) END`;

type Found = { i: number; account_id: number | null; moving: string | null };

async function lookup(db: D1Database, rows: [string, number][]): Promise<Found[]> {
  const { results } = await db.prepare(LOOKUP).bind(JSON.stringify(rows)).all<Found>();
  return results;
}

/**
 * The messages of a shard's part of a batch that belong on this shard; the others are sent on
 * (and acked) or retried (a frozen account's). `root` is the Worker's env (every binding).
 */
export async function keepOnShard(root: Bindings, shard: number, messages: readonly Message<PipelineMessage>[]): Promise<Message<PipelineMessage>[]> {
  const withRows = messages.flatMap((m) => {
    const row = rowOf(m.body);
    return row ? [{ m, row }] : [];
  });
  if (withRows.length === 0) return [...messages];
  // (Benchmark runs count this statement: bench/run.mjs adds it to each message's share.)
  const binding = root.BENCH_METRICS === "1" ? meteredD1(shardBinding(root, shard)) : shardBinding(root, shard);
  const found = await lookup(binding, withRows.map((w) => w.row));
  const stay = new Set<Message<PipelineMessage>>(messages.filter((m) => !rowOf(m.body)));
  const elsewhere: { m: Message<PipelineMessage>; row: [string, number] }[] = [];
  const sendOn: { m: Message<PipelineMessage>; to: number }[] = [];
  for (const f of found) {
    const { m, row } = withRows[f.i];
    if (f.account_id === null) elsewhere.push({ m, row });
    else if (f.moving === "frozen") m.retry({ delaySeconds: MOVING_RETRY_SECONDS });
    else if (f.moving === "leaving") {
      forgetAccount(f.account_id);
      const to = (await shardOfAccount(root, f.account_id)) ?? shard;
      // Leaving with nowhere to go: the account is being deleted (src/shards/delete.ts); its work is
      // dropped, not retried until its rows are gone.
      if (to === shard) {
        if (await isDeleted(root, f.account_id)) m.ack();
        else m.retry({ delaySeconds: MOVING_RETRY_SECONDS });
      } else sendOn.push({ m, to });
    } else stay.add(m);
  }
  // Not here at all: ids are unique across shards, so the shard that has the row is its shard.
  if (elsewhere.length > 0) {
    const others = shardNumbers(root).filter((n) => n !== shard);
    const answers = await Promise.all(others.map((n) => lookup(shardBinding(root, n), elsewhere.map((e) => e.row))));
    elsewhere.forEach(({ m }, i) => {
      const at = others.findIndex((_, k) => answers[k][i]?.account_id !== null);
      if (at < 0) stay.add(m); // nowhere: the handler says what it says of a missing row
      else sendOn.push({ m, to: others[at] });
    });
  }
  for (const { m, to } of sendOn) {
    await enqueue(root, [{ ...m.body, shard: to }]);
    m.ack();
  }
  return messages.filter((m) => stay.has(m));
}
