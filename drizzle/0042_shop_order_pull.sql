ALTER TABLE `shop_connections` ADD `pull_cursor` text;--> statement-breakpoint
ALTER TABLE `shop_connections` ADD `pulled_at` text;