CREATE TABLE `directory_id_blocks` (
	`block` integer PRIMARY KEY NOT NULL,
	`shard` integer NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `directory_moves` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`from_shard` integer NOT NULL,
	`to_shard` integer NOT NULL,
	`phase` text NOT NULL,
	`table_index` integer DEFAULT 0 NOT NULL,
	`cursor` integer DEFAULT 0 NOT NULL,
	`rows_copied` integer DEFAULT 0 NOT NULL,
	`rows_deleted` integer DEFAULT 0 NOT NULL,
	`started_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`finished_at` text,
	FOREIGN KEY (`account_id`) REFERENCES `directory_accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `directory_moves_open_idx` ON `directory_moves` (`account_id`) WHERE "directory_moves"."phase" <> 'done';--> statement-breakpoint
CREATE TABLE `directory_suppliers` (
	`supplier_id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `directory_accounts`(`id`) ON UPDATE no action ON DELETE no action
);
