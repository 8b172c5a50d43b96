ALTER TABLE `stock_sync_items` ADD `old_quantity` integer;--> statement-breakpoint
ALTER TABLE `stock_sync_items` ADD `old_price` integer;--> statement-breakpoint
ALTER TABLE `stock_syncs` ADD `skipped` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `stock_syncs` ADD `checked_at` text;--> statement-breakpoint
ALTER TABLE `stock_syncs` ADD `guard_reason` text;--> statement-breakpoint
ALTER TABLE `stock_syncs` ADD `confirmed_at` text;