ALTER TABLE `order_lines` ADD `height` real;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `width` real;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `length` real;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `weight` real;--> statement-breakpoint
CREATE INDEX `orders_account_source_idx` ON `orders` (`account_id`,"source" COLLATE NOCASE,`created_at`);--> statement-breakpoint
CREATE INDEX `orders_account_test_source_idx` ON `orders` (`account_id`,`test`,"source" COLLATE NOCASE,`created_at`);