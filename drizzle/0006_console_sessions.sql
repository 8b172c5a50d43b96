CREATE TABLE `console_sessions` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`token_hash` text NOT NULL,
	`role` text NOT NULL,
	`account_id` integer,
	`api_key_id` integer,
	`supplier_key_id` integer,
	`operator_token_hash` text,
	`created_at` text NOT NULL,
	`last_seen_at` text NOT NULL,
	`expires_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`api_key_id`) REFERENCES `api_keys`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`supplier_key_id`) REFERENCES `supplier_keys`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `console_sessions_token_hash_unique` ON `console_sessions` (`token_hash`);--> statement-breakpoint
CREATE INDEX `console_sessions_expires_idx` ON `console_sessions` (`expires_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_account_status_idx` ON `webhook_deliveries` (`account_id`,`status`,`id`);