CREATE TABLE `counters` (
	`account_id` integer NOT NULL,
	`test` integer NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`account_id`, `test`, `kind`, `key`)
);
--> statement-breakpoint
CREATE TABLE `line_status_codes` (
	`code` integer PRIMARY KEY NOT NULL,
	`status` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `line_status_codes_status_unique` ON `line_status_codes` (`status`);--> statement-breakpoint
CREATE TABLE `order_facets` (
	`account_id` integer NOT NULL,
	`test` integer NOT NULL,
	`kind` integer NOT NULL,
	`value` integer NOT NULL,
	`created_at` text NOT NULL,
	`order_id` integer NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`account_id`, `test`, `kind`, `value`, `created_at`, `order_id`)
);
--> statement-breakpoint
DROP INDEX `order_lines_account_supplier_idx`;--> statement-breakpoint
DROP INDEX `orders_account_created_idx`;--> statement-breakpoint
DROP INDEX `orders_account_total_idx`;--> statement-breakpoint
DROP INDEX `orders_account_completed_idx`;--> statement-breakpoint
DROP INDEX `orders_account_blocked_created_idx`;--> statement-breakpoint
DROP INDEX `orders_account_source_idx`;--> statement-breakpoint
CREATE INDEX `orders_account_test_total_bucket_idx` ON `orders` (`account_id`,`test`,length("total") * 3 + (CAST("total" AS TEXT) >= '2') + (CAST("total" AS TEXT) >= '5'),`created_at`,`id`,`total`);--> statement-breakpoint
CREATE INDEX `orders_completed_created_idx` ON `orders` (`account_id`,`test`,`created_at`,`id`,`completed_at`) WHERE "orders"."completed_at" IS NOT NULL;