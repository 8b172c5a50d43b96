-- The freeze triggers of drizzle/0015, reading no row while no account moves: they probe
-- accounts_moving_idx (drizzle/0018: only accounts whose moving is set), empty the rest of the time,
-- instead of the account's row on every write (test/reliability/pipeline.rows-read.test.ts counts
-- the rows a declined order's life reads). Tables without account_id look their parent up only
-- when some account moves. order_line_logs keeps no freeze trigger: every log entry is written in
-- the batch of the line's or order's change it records, after it and conditional on it
-- (src/orders/lifecycle.ts, src/forwarding/deadlines.ts), and that change is refused.
DROP TRIGGER `api_keys_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `api_keys_moving_insert` BEFORE INSERT ON api_keys WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `api_keys_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `api_keys_moving_update` BEFORE UPDATE ON api_keys WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `api_keys_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `api_keys_moving_delete` BEFORE DELETE ON api_keys WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `cancellation_lines_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `cancellation_lines_moving_insert` BEFORE INSERT ON cancellation_lines WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `cancellation_lines_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `cancellation_lines_moving_update` BEFORE UPDATE ON cancellation_lines WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `cancellation_lines_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `cancellation_lines_moving_delete` BEFORE DELETE ON cancellation_lines WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `cancellations_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `cancellations_moving_insert` BEFORE INSERT ON cancellations WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `cancellations_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `cancellations_moving_update` BEFORE UPDATE ON cancellations WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `cancellations_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `cancellations_moving_delete` BEFORE DELETE ON cancellations WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `console_sessions_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `console_sessions_moving_insert` BEFORE INSERT ON console_sessions WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `console_sessions_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `console_sessions_moving_update` BEFORE UPDATE ON console_sessions WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `console_sessions_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `console_sessions_moving_delete` BEFORE DELETE ON console_sessions WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `dispatches_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `dispatches_moving_insert` BEFORE INSERT ON dispatches WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `dispatches_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `dispatches_moving_update` BEFORE UPDATE ON dispatches WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `dispatches_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `dispatches_moving_delete` BEFORE DELETE ON dispatches WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `events_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `events_moving_insert` BEFORE INSERT ON events WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `events_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `events_moving_update` BEFORE UPDATE ON events WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `events_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `events_moving_delete` BEFORE DELETE ON events WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `order_lines_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `order_lines_moving_insert` BEFORE INSERT ON order_lines WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `order_lines_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `order_lines_moving_update` BEFORE UPDATE ON order_lines WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `order_lines_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `order_lines_moving_delete` BEFORE DELETE ON order_lines WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `orders_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `orders_moving_insert` BEFORE INSERT ON orders WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `orders_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `orders_moving_update` BEFORE UPDATE ON orders WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `orders_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `orders_moving_delete` BEFORE DELETE ON orders WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `product_feeds_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `product_feeds_moving_insert` BEFORE INSERT ON product_feeds WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `product_feeds_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `product_feeds_moving_update` BEFORE UPDATE ON product_feeds WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `product_feeds_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `product_feeds_moving_delete` BEFORE DELETE ON product_feeds WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `product_imports_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `product_imports_moving_insert` BEFORE INSERT ON product_imports WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `product_imports_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `product_imports_moving_update` BEFORE UPDATE ON product_imports WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `product_imports_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `product_imports_moving_delete` BEFORE DELETE ON product_imports WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `products_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `products_moving_insert` BEFORE INSERT ON products WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `products_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `products_moving_update` BEFORE UPDATE ON products WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `products_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `products_moving_delete` BEFORE DELETE ON products WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `routing_rules_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `routing_rules_moving_insert` BEFORE INSERT ON routing_rules WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `routing_rules_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `routing_rules_moving_update` BEFORE UPDATE ON routing_rules WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `routing_rules_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `routing_rules_moving_delete` BEFORE DELETE ON routing_rules WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `shipments_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `shipments_moving_insert` BEFORE INSERT ON shipments WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `shipments_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `shipments_moving_update` BEFORE UPDATE ON shipments WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `shipments_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `shipments_moving_delete` BEFORE DELETE ON shipments WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `supplier_keys_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `supplier_keys_moving_insert` BEFORE INSERT ON supplier_keys WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `supplier_keys_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `supplier_keys_moving_update` BEFORE UPDATE ON supplier_keys WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `supplier_keys_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `supplier_keys_moving_delete` BEFORE DELETE ON supplier_keys WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `suppliers_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `suppliers_moving_insert` BEFORE INSERT ON suppliers WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `suppliers_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `suppliers_moving_update` BEFORE UPDATE ON suppliers WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `suppliers_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `suppliers_moving_delete` BEFORE DELETE ON suppliers WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `webhook_deliveries_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_moving_insert` BEFORE INSERT ON webhook_deliveries WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `webhook_deliveries_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_moving_update` BEFORE UPDATE ON webhook_deliveries WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `webhook_deliveries_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `webhook_deliveries_moving_delete` BEFORE DELETE ON webhook_deliveries WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `webhook_subscriptions_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `webhook_subscriptions_moving_insert` BEFORE INSERT ON webhook_subscriptions WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `webhook_subscriptions_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `webhook_subscriptions_moving_update` BEFORE UPDATE ON webhook_subscriptions WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `webhook_subscriptions_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `webhook_subscriptions_moving_delete` BEFORE DELETE ON webhook_subscriptions WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `dead_letters_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `dead_letters_moving_insert` BEFORE INSERT ON dead_letters WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `dead_letters_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `dead_letters_moving_update` BEFORE UPDATE ON dead_letters WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `dead_letters_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `dead_letters_moving_delete` BEFORE DELETE ON dead_letters WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `order_line_logs_moving_insert`;
--> statement-breakpoint
DROP TRIGGER `order_line_logs_moving_update`;
--> statement-breakpoint
DROP TRIGGER `order_line_logs_moving_delete`;
--> statement-breakpoint
DROP TRIGGER `webhook_delivery_attempts_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `webhook_delivery_attempts_moving_insert` BEFORE INSERT ON webhook_delivery_attempts WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = (SELECT account_id FROM webhook_deliveries WHERE id = NEW.delivery_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `webhook_delivery_attempts_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `webhook_delivery_attempts_moving_update` BEFORE UPDATE ON webhook_delivery_attempts WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = (SELECT account_id FROM webhook_deliveries WHERE id = NEW.delivery_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `webhook_delivery_attempts_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `webhook_delivery_attempts_moving_delete` BEFORE DELETE ON webhook_delivery_attempts WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = (SELECT account_id FROM webhook_deliveries WHERE id = OLD.delivery_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `product_import_rows_moving_insert`;
--> statement-breakpoint
CREATE TRIGGER `product_import_rows_moving_insert` BEFORE INSERT ON product_import_rows WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = (SELECT account_id FROM product_imports WHERE id = NEW.import_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `product_import_rows_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `product_import_rows_moving_update` BEFORE UPDATE ON product_import_rows WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = (SELECT account_id FROM product_imports WHERE id = NEW.import_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `product_import_rows_moving_delete`;
--> statement-breakpoint
CREATE TRIGGER `product_import_rows_moving_delete` BEFORE DELETE ON product_import_rows WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = (SELECT account_id FROM product_imports WHERE id = OLD.import_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
