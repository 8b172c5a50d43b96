CREATE TABLE `shop_write_back_attempts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`write_back_id` integer NOT NULL,
	`calls` text NOT NULL,
	`dry_run` integer DEFAULT false NOT NULL,
	`error` text,
	`duration_ms` integer NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`write_back_id`) REFERENCES `shop_write_backs`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `shop_write_back_attempts_write_back_idx` ON `shop_write_back_attempts` (`write_back_id`,`id`);--> statement-breakpoint
CREATE TABLE `shop_write_backs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`connection_id` integer NOT NULL,
	`order_id` integer NOT NULL,
	`event_id` text NOT NULL,
	`kind` text NOT NULL,
	`line_id` integer,
	`shipped_in_full` integer,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`lease_until` text,
	`shop_ids` text,
	`shop_order` text,
	`unclear` integer DEFAULT false NOT NULL,
	`dry_run` integer DEFAULT false NOT NULL,
	`last_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`done_at` text,
	FOREIGN KEY (`connection_id`) REFERENCES `shop_connections`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `shop_write_backs_event_uq` ON `shop_write_backs` (`connection_id`,`event_id`,`kind`);--> statement-breakpoint
CREATE UNIQUE INDEX `shop_write_backs_complete_uq` ON `shop_write_backs` (`connection_id`,`order_id`) WHERE "kind" = 'complete';--> statement-breakpoint
CREATE INDEX `shop_write_backs_order_idx` ON `shop_write_backs` (`order_id`,`connection_id`,`id`);--> statement-breakpoint
CREATE INDEX `shop_write_backs_connection_idx` ON `shop_write_backs` (`connection_id`,`id`);--> statement-breakpoint
CREATE INDEX `shop_write_backs_account_status_idx` ON `shop_write_backs` (`account_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `shop_write_backs_status_idx` ON `shop_write_backs` (`status`,`id`);--> statement-breakpoint
CREATE INDEX `shop_write_backs_event_idx` ON `shop_write_backs` (`event_id`);