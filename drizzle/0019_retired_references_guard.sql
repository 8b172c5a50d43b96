-- A reference this shard retired (its order moved away with its account, src/shards/move.ts) is
-- refused as the unique index refuses a taken one: createOrder draws another on the same message.
CREATE TRIGGER `orders_reference_retired` BEFORE INSERT ON orders
WHEN EXISTS (SELECT 1 FROM retired_references WHERE reference = NEW.reference)
BEGIN
	SELECT RAISE(ABORT, 'UNIQUE constraint failed: orders.reference (retired)');
END;
