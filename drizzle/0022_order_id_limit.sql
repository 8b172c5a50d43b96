-- Issue 14, the limits of ids: the order search's rowid keeps the low 32 bits of an order's place
-- in its id block ((id >> 40) * 2^32 + (id & (2^32 - 1)), drizzle/0017_shard_moves.sql). Orders'
-- ids within a block come only from order creations (AUTOINCREMENT, which draws an id for a repeat
-- of an existing external_id too; a move's copies keep ids minted under this same guard), so a
-- shard mints at most 2^32 order ids per block: 4,294,967,296, some 2,500 per order that fits in
-- one 10 GB D1 database. The one past it would share its search entry with an earlier order of the
-- account (and be found as that one, or not at all): refused instead, and the API answers 503
-- (src/lib/errors.ts). The check is arithmetic on the new row: no row is read.
CREATE TRIGGER `orders_id_limit` AFTER INSERT ON orders WHEN (NEW.id & 1095216660480) != 0 BEGIN
	SELECT RAISE(ABORT, 'order_ids_exhausted: this shard has minted 2^32 orders in its id block');
END;
