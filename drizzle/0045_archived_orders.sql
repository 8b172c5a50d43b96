CREATE TABLE `archived_orders` (
	`id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`reference` text NOT NULL,
	`external_id` text NOT NULL,
	`source` text NOT NULL,
	`test` integer NOT NULL,
	`created_at` text NOT NULL,
	`statuses` integer NOT NULL,
	`total` integer NOT NULL,
	`currency` text,
	`email` text,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`company_name` text,
	`postcode` text NOT NULL,
	`city` text NOT NULL,
	`country` text NOT NULL,
	`part` text NOT NULL,
	`line` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `archived_orders_reference_uq` ON `archived_orders` (`reference`);--> statement-breakpoint
CREATE UNIQUE INDEX `archived_orders_account_external_uq` ON `archived_orders` (`account_id`,`external_id`);--> statement-breakpoint
CREATE INDEX `archived_orders_account_test_created_idx` ON `archived_orders` (`account_id`,`test`,`created_at`);--> statement-breakpoint
ALTER TABLE `accounts` ADD `archive_after_days` integer DEFAULT 90 NOT NULL;--> statement-breakpoint
-- A reference stays unique across live and archived orders (src/archive, docs/archive.md): a new
-- order never mints an archived one's reference (createOrder draws another, as for a retired one).
CREATE TRIGGER `orders_reference_archived` BEFORE INSERT ON orders
WHEN EXISTS (SELECT 1 FROM archived_orders WHERE reference = NEW.reference)
BEGIN
	SELECT RAISE(ABORT, 'UNIQUE constraint failed: orders.reference (archived)');
END;
--> statement-breakpoint
-- A moving account's stubs refuse writes like its other rows (drizzle/0031): the move copies them.
CREATE TRIGGER `archived_orders_moving_insert` BEFORE INSERT ON archived_orders WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `archived_orders_moving_update` BEFORE UPDATE ON archived_orders WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `archived_orders_moving_delete` BEFORE DELETE ON archived_orders WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
-- Create stays idempotent per (account, external_id) once the first order is archived: its insert is
-- skipped as the unique index's ON CONFLICT DO NOTHING skips it for a live one, and createOrder
-- answers the archived order's reference ("Order already exists").
CREATE TRIGGER `orders_external_id_archived` BEFORE INSERT ON orders
WHEN EXISTS (SELECT 1 FROM archived_orders WHERE account_id = NEW.account_id AND external_id = NEW.external_id)
BEGIN
	SELECT RAISE(IGNORE);
END;
