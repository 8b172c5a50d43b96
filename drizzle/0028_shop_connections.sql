CREATE TABLE `shop_connections` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`platform` text NOT NULL,
	`name` text NOT NULL,
	`base_url` text NOT NULL,
	`credentials_sealed` text NOT NULL,
	`credentials_hint` text NOT NULL,
	`sources` text,
	`settings` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`deleted_at` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `shop_connections_account_idx` ON `shop_connections` (`account_id`,`deleted_at`,`active`);