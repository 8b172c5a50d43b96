CREATE TABLE `attention_set_asides` (
	`account_id` integer NOT NULL,
	`item_key` text NOT NULL,
	`dismissed_at` text NOT NULL,
	`snoozed_until` text,
	PRIMARY KEY(`account_id`, `item_key`)
);
--> statement-breakpoint
ALTER TABLE `shop_write_backs` ADD `last_failure` text;