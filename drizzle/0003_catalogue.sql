CREATE TABLE `product_import_rows` (
	`id` integer PRIMARY KEY NOT NULL,
	`import_id` integer NOT NULL,
	`line` integer NOT NULL,
	`sku` text NOT NULL,
	`ean13` text,
	`name` text NOT NULL,
	`purchase_price` real,
	`stock_quantity` integer,
	`active` integer NOT NULL,
	`rejected` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `product_import_rows_import_sku_uq` ON `product_import_rows` (`import_id`,`sku`);--> statement-breakpoint
CREATE TABLE `product_imports` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`product_feed_id` integer NOT NULL,
	`trigger` text NOT NULL,
	`status` text NOT NULL,
	`replace` integer NOT NULL,
	`source` text NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text,
	`rows_read` integer DEFAULT 0 NOT NULL,
	`rows_created` integer DEFAULT 0 NOT NULL,
	`rows_updated` integer DEFAULT 0 NOT NULL,
	`rows_unchanged` integer DEFAULT 0 NOT NULL,
	`rows_deactivated` integer DEFAULT 0 NOT NULL,
	`rows_rejected` integer DEFAULT 0 NOT NULL,
	`error` text,
	`rejections` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`product_feed_id`) REFERENCES `product_feeds`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `product_imports_feed_idx` ON `product_imports` (`product_feed_id`,`id`);--> statement-breakpoint
CREATE INDEX `product_imports_status_idx` ON `product_imports` (`status`,`started_at`);--> statement-breakpoint
ALTER TABLE `product_feeds` ADD `csv_delimiter` text;--> statement-breakpoint
ALTER TABLE `product_feeds` ADD `record_path` text;--> statement-breakpoint
ALTER TABLE `product_feeds` ADD `encoding` text;--> statement-breakpoint
ALTER TABLE `product_feeds` ADD `next_import_at` text;--> statement-breakpoint
CREATE INDEX `product_feeds_next_import_idx` ON `product_feeds` (`next_import_at`);--> statement-breakpoint
CREATE INDEX `products_feed_id_idx` ON `products` (`product_feed_id`,`id`);--> statement-breakpoint
CREATE INDEX `products_account_updated_idx` ON `products` (`account_id`,`updated_at`);