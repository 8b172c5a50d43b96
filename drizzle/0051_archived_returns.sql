CREATE TABLE `archived_returns` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`order_id` integer NOT NULL,
	`supplier_id` integer NOT NULL,
	`status` text NOT NULL,
	`credit_amount` integer,
	`credit_currency` text,
	`updated_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `archived_returns_supplier_status_updated_idx` ON `archived_returns` (`supplier_id`,`status`,`updated_at`);--> statement-breakpoint
-- Frozen with the account's other rows while it moves between shards (as archived_orders, drizzle/0045).
CREATE TRIGGER `archived_returns_moving_insert` BEFORE INSERT ON archived_returns WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `archived_returns_moving_update` BEFORE UPDATE ON archived_returns WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `archived_returns_moving_delete` BEFORE DELETE ON archived_returns WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE INDEX `order_line_logs_line_idx` ON `order_line_logs` (`order_line_id`);--> statement-breakpoint
CREATE INDEX `return_notices_order_idx` ON `return_notices` (`order_id`);