-- Issue 14, sharding: what a move of an account between shards (src/shards/move.ts) and ids from
-- several shards' ranges need of every shard.
--
-- 1. The order search's rowid: (account_id * 2 + test) * 2^40 + the order id packed into 40 bits
--    ((id >> 40) * 2^32 + (id & (2^32 - 1)): the shard range the id was minted in, then its place
--    there). Shard n mints ids from n × 2^40 (scripts/lib/shards.mjs), and a moved account keeps
--    its ids, so one account's orders may come from several ranges; the old rowid
--    ((account_id * 2 + test) * 2^32 + id) put shard 1's orders outside their account's range.
--    Limits: 256 shards, 2^32 orders minted per shard, accounts below 2^22 (rowids below 2^63).
-- 2. The write freeze of a moving account: while accounts.moving is 'frozen' no row of the account
--    is inserted, changed or deleted (RAISE: the API answers 503 with Retry-After); 'leaving' (the
--    directory points at the new shard) lets only deletes through, the move's own. A write that
--    checked the account before the freeze still fails here: the freeze is in the database, not in
--    a cache. Tables without account_id find it through their parent.
DROP TRIGGER `orders_counts_insert`;
--> statement-breakpoint
CREATE TRIGGER `orders_counts_insert` AFTER INSERT ON orders BEGIN
	INSERT INTO order_changes VALUES (NEW.id, 1, 1, 1, 1, 1, 1, 1);
	INSERT INTO orders_external_fts (rowid, external_id) VALUES ((NEW.account_id * 2 + NEW.test) * 1099511627776 + (NEW.id >> 40) * 4294967296 + (NEW.id & 4294967295), lower(NEW.external_id));
END;
--> statement-breakpoint
DROP TRIGGER `orders_counts_update_before`;
--> statement-breakpoint
CREATE TRIGGER `orders_counts_update_before` BEFORE UPDATE OF account_id, test, blocked, source, created_at, completed_at, total, external_id ON orders
WHEN OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.blocked IS NOT NEW.blocked OR OLD.source IS NOT NEW.source
	OR OLD.created_at IS NOT NEW.created_at OR OLD.completed_at IS NOT NEW.completed_at OR OLD.total IS NOT NEW.total OR OLD.external_id IS NOT NEW.external_id
BEGIN
	INSERT INTO order_changes VALUES (OLD.id, -1, OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test, OLD.blocked IS NOT NEW.blocked,
		OLD.source IS NOT NEW.source, OLD.created_at IS NOT NEW.created_at, OLD.completed_at IS NOT NEW.completed_at, OLD.total IS NOT NEW.total);
	DELETE FROM order_facets WHERE (account_id, test, kind, value, created_at, order_id) IN
		(SELECT account_id, test, kind, value, created_at, order_id FROM order_facet_rows WHERE order_id = OLD.id)
		AND (OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.created_at IS NOT NEW.created_at);
	DELETE FROM orders_external_fts WHERE rowid = (OLD.account_id * 2 + OLD.test) * 1099511627776 + (OLD.id >> 40) * 4294967296 + (OLD.id & 4294967295)
		AND (OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.external_id IS NOT NEW.external_id);
END;
--> statement-breakpoint
DROP TRIGGER `orders_counts_update_after`;
--> statement-breakpoint
CREATE TRIGGER `orders_counts_update_after` AFTER UPDATE OF account_id, test, blocked, source, created_at, completed_at, total, external_id ON orders
WHEN OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.blocked IS NOT NEW.blocked OR OLD.source IS NOT NEW.source
	OR OLD.created_at IS NOT NEW.created_at OR OLD.completed_at IS NOT NEW.completed_at OR OLD.total IS NOT NEW.total OR OLD.external_id IS NOT NEW.external_id
BEGIN
	INSERT INTO order_facets (account_id, test, kind, value, created_at, order_id, n)
		SELECT * FROM order_facet_rows WHERE order_id = NEW.id
			AND (OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.created_at IS NOT NEW.created_at);
	INSERT INTO order_changes VALUES (NEW.id, 1, OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test, OLD.blocked IS NOT NEW.blocked,
		OLD.source IS NOT NEW.source, OLD.created_at IS NOT NEW.created_at, OLD.completed_at IS NOT NEW.completed_at, OLD.total IS NOT NEW.total);
	INSERT INTO orders_external_fts (rowid, external_id)
		SELECT (NEW.account_id * 2 + NEW.test) * 1099511627776 + (NEW.id >> 40) * 4294967296 + (NEW.id & 4294967295), lower(NEW.external_id)
		WHERE OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.external_id IS NOT NEW.external_id;
END;
--> statement-breakpoint
DROP TRIGGER `orders_counts_delete`;
--> statement-breakpoint
CREATE TRIGGER `orders_counts_delete` BEFORE DELETE ON orders BEGIN
	INSERT INTO order_changes VALUES (OLD.id, -1, 1, 1, 1, 1, 1, 1);
	DELETE FROM order_facets WHERE (account_id, test, kind, value, created_at, order_id) IN
		(SELECT account_id, test, kind, value, created_at, order_id FROM order_facet_rows WHERE order_id = OLD.id);
	DELETE FROM orders_external_fts WHERE rowid = (OLD.account_id * 2 + OLD.test) * 1099511627776 + (OLD.id >> 40) * 4294967296 + (OLD.id & 4294967295);
END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_moving_insert` BEFORE INSERT ON api_keys WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_moving_update` BEFORE UPDATE ON api_keys WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `api_keys_moving_delete` BEFORE DELETE ON api_keys WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `cancellation_lines_moving_insert` BEFORE INSERT ON cancellation_lines WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `cancellation_lines_moving_update` BEFORE UPDATE ON cancellation_lines WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `cancellation_lines_moving_delete` BEFORE DELETE ON cancellation_lines WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `cancellations_moving_insert` BEFORE INSERT ON cancellations WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `cancellations_moving_update` BEFORE UPDATE ON cancellations WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `cancellations_moving_delete` BEFORE DELETE ON cancellations WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `console_sessions_moving_insert` BEFORE INSERT ON console_sessions WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `console_sessions_moving_update` BEFORE UPDATE ON console_sessions WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `console_sessions_moving_delete` BEFORE DELETE ON console_sessions WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `dispatches_moving_insert` BEFORE INSERT ON dispatches WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `dispatches_moving_update` BEFORE UPDATE ON dispatches WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `dispatches_moving_delete` BEFORE DELETE ON dispatches WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `events_moving_insert` BEFORE INSERT ON events WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `events_moving_update` BEFORE UPDATE ON events WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `events_moving_delete` BEFORE DELETE ON events WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `order_lines_moving_insert` BEFORE INSERT ON order_lines WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `order_lines_moving_update` BEFORE UPDATE ON order_lines WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `order_lines_moving_delete` BEFORE DELETE ON order_lines WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `orders_moving_insert` BEFORE INSERT ON orders WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `orders_moving_update` BEFORE UPDATE ON orders WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `orders_moving_delete` BEFORE DELETE ON orders WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `product_feeds_moving_insert` BEFORE INSERT ON product_feeds WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `product_feeds_moving_update` BEFORE UPDATE ON product_feeds WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `product_feeds_moving_delete` BEFORE DELETE ON product_feeds WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `product_imports_moving_insert` BEFORE INSERT ON product_imports WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `product_imports_moving_update` BEFORE UPDATE ON product_imports WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `product_imports_moving_delete` BEFORE DELETE ON product_imports WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `products_moving_insert` BEFORE INSERT ON products WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `products_moving_update` BEFORE UPDATE ON products WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `products_moving_delete` BEFORE DELETE ON products WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `routing_rules_moving_insert` BEFORE INSERT ON routing_rules WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `routing_rules_moving_update` BEFORE UPDATE ON routing_rules WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `routing_rules_moving_delete` BEFORE DELETE ON routing_rules WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `shipments_moving_insert` BEFORE INSERT ON shipments WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `shipments_moving_update` BEFORE UPDATE ON shipments WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `shipments_moving_delete` BEFORE DELETE ON shipments WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `supplier_keys_moving_insert` BEFORE INSERT ON supplier_keys WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `supplier_keys_moving_update` BEFORE UPDATE ON supplier_keys WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `supplier_keys_moving_delete` BEFORE DELETE ON supplier_keys WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `suppliers_moving_insert` BEFORE INSERT ON suppliers WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `suppliers_moving_update` BEFORE UPDATE ON suppliers WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `suppliers_moving_delete` BEFORE DELETE ON suppliers WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_moving_insert` BEFORE INSERT ON webhook_deliveries WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_moving_update` BEFORE UPDATE ON webhook_deliveries WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_moving_delete` BEFORE DELETE ON webhook_deliveries WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_subscriptions_moving_insert` BEFORE INSERT ON webhook_subscriptions WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_subscriptions_moving_update` BEFORE UPDATE ON webhook_subscriptions WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_subscriptions_moving_delete` BEFORE DELETE ON webhook_subscriptions WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `dead_letters_moving_insert` BEFORE INSERT ON dead_letters WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `dead_letters_moving_update` BEFORE UPDATE ON dead_letters WHEN EXISTS (SELECT 1 FROM accounts WHERE id = NEW.account_id AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `dead_letters_moving_delete` BEFORE DELETE ON dead_letters WHEN EXISTS (SELECT 1 FROM accounts WHERE id = OLD.account_id AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `order_line_logs_moving_insert` BEFORE INSERT ON order_line_logs WHEN EXISTS (SELECT 1 FROM accounts WHERE id = (SELECT account_id FROM orders WHERE id = NEW.order_id) AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `order_line_logs_moving_update` BEFORE UPDATE ON order_line_logs WHEN EXISTS (SELECT 1 FROM accounts WHERE id = (SELECT account_id FROM orders WHERE id = NEW.order_id) AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `order_line_logs_moving_delete` BEFORE DELETE ON order_line_logs WHEN EXISTS (SELECT 1 FROM accounts WHERE id = (SELECT account_id FROM orders WHERE id = OLD.order_id) AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_delivery_attempts_moving_insert` BEFORE INSERT ON webhook_delivery_attempts WHEN EXISTS (SELECT 1 FROM accounts WHERE id = (SELECT account_id FROM webhook_deliveries WHERE id = NEW.delivery_id) AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_delivery_attempts_moving_update` BEFORE UPDATE ON webhook_delivery_attempts WHEN EXISTS (SELECT 1 FROM accounts WHERE id = (SELECT account_id FROM webhook_deliveries WHERE id = NEW.delivery_id) AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `webhook_delivery_attempts_moving_delete` BEFORE DELETE ON webhook_delivery_attempts WHEN EXISTS (SELECT 1 FROM accounts WHERE id = (SELECT account_id FROM webhook_deliveries WHERE id = OLD.delivery_id) AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `product_import_rows_moving_insert` BEFORE INSERT ON product_import_rows WHEN EXISTS (SELECT 1 FROM accounts WHERE id = (SELECT account_id FROM product_imports WHERE id = NEW.import_id) AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `product_import_rows_moving_update` BEFORE UPDATE ON product_import_rows WHEN EXISTS (SELECT 1 FROM accounts WHERE id = (SELECT account_id FROM product_imports WHERE id = NEW.import_id) AND moving IN ('frozen', 'leaving')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `product_import_rows_moving_delete` BEFORE DELETE ON product_import_rows WHEN EXISTS (SELECT 1 FROM accounts WHERE id = (SELECT account_id FROM product_imports WHERE id = OLD.import_id) AND moving IN ('frozen')) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `accounts_moving_update` BEFORE UPDATE ON accounts WHEN OLD.moving IN ('frozen', 'leaving') AND NEW.moving IS OLD.moving BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `accounts_moving_delete` BEFORE DELETE ON accounts WHEN OLD.moving = 'frozen' BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
INSERT INTO orders_external_fts (orders_external_fts) VALUES ('delete-all');
--> statement-breakpoint
INSERT INTO orders_external_fts (rowid, external_id) SELECT (account_id * 2 + test) * 1099511627776 + (id >> 40) * 4294967296 + (id & 4294967295), lower(external_id) FROM orders;
