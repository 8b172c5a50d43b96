CREATE TABLE `catalogue_sequences` (
	`account_id` integer PRIMARY KEY NOT NULL,
	`seq` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `shop_stock_cursors` (
	`connection_id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`seen_seq` integer DEFAULT 0 NOT NULL,
	`map_built_at` text,
	`map_match_by` text,
	FOREIGN KEY (`connection_id`) REFERENCES `shop_connections`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `shop_stock_items` (
	`connection_id` integer NOT NULL,
	`match_key` text NOT NULL,
	`shop_id` text NOT NULL,
	`shop_parent_id` text,
	`quantity` integer,
	`price` integer,
	PRIMARY KEY(`connection_id`, `match_key`)
);
--> statement-breakpoint
CREATE TABLE `stock_sync_items` (
	`sync_id` integer NOT NULL,
	`match_key` text NOT NULL,
	`outcome` text NOT NULL,
	`quantity` integer,
	`price` integer,
	`shop_id` text,
	`reason` text,
	PRIMARY KEY(`sync_id`, `match_key`)
);
--> statement-breakpoint
CREATE INDEX `stock_sync_items_outcome_idx` ON `stock_sync_items` (`sync_id`,`outcome`,`match_key`);--> statement-breakpoint
CREATE TABLE `stock_syncs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`connection_id` integer NOT NULL,
	`status` text NOT NULL,
	`trigger` text NOT NULL,
	`full` integer DEFAULT false NOT NULL,
	`from_seq` integer,
	`to_seq` integer,
	`total` integer DEFAULT 0 NOT NULL,
	`done` integer DEFAULT 0 NOT NULL,
	`updated` integer DEFAULT 0 NOT NULL,
	`unchanged` integer DEFAULT 0 NOT NULL,
	`unknown` integer DEFAULT 0 NOT NULL,
	`failed` integer DEFAULT 0 NOT NULL,
	`lease_until` text,
	`attempts` integer DEFAULT 0 NOT NULL,
	`retry_at` text,
	`created_at` text NOT NULL,
	`started_at` text,
	`finished_at` text,
	`error` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`connection_id`) REFERENCES `shop_connections`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `stock_syncs_connection_idx` ON `stock_syncs` (`connection_id`,`id`);--> statement-breakpoint
CREATE UNIQUE INDEX `stock_syncs_one_queued_uq` ON `stock_syncs` (`connection_id`) WHERE status = 'queued';--> statement-breakpoint
CREATE INDEX `stock_syncs_open_idx` ON `stock_syncs` (`status`,`lease_until`);--> statement-breakpoint
ALTER TABLE `products` ADD `change_seq` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX `products_account_change_idx` ON `products` (`account_id`,`change_seq`);