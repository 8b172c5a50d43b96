CREATE TABLE `routing_rules` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`priority` integer NOT NULL,
	`match` text DEFAULT 'all' NOT NULL,
	`conditions` text NOT NULL,
	`action` text NOT NULL,
	`active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `routing_rules_account_priority_idx` ON `routing_rules` (`account_id`,`priority`,`id`);--> statement-breakpoint
ALTER TABLE `orders` ADD `routed_at` text;--> statement-breakpoint
CREATE INDEX `orders_unrouted_idx` ON `orders` (`routed_at`,`created_at`);