CREATE TABLE `directory_accounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`shard` integer NOT NULL,
	`pinned` integer DEFAULT false NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `directory_accounts_shard_idx` ON `directory_accounts` (`shard`);--> statement-breakpoint
CREATE TABLE `directory_credentials` (
	`key_hash` text PRIMARY KEY NOT NULL,
	`kind` text NOT NULL,
	`account_id` integer NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `directory_accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `directory_credentials_account_idx` ON `directory_credentials` (`account_id`);