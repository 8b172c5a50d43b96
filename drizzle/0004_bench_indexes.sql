CREATE INDEX `order_lines_dispatch_idx` ON `order_lines` (`dispatch_id`);--> statement-breakpoint
CREATE INDEX `orders_account_test_total_idx` ON `orders` (`account_id`,`test`,`total`,`created_at`);--> statement-breakpoint
CREATE INDEX `orders_account_test_completed_idx` ON `orders` (`account_id`,`test`,`completed_at`,`created_at`);--> statement-breakpoint
CREATE INDEX `orders_account_test_blocked_idx` ON `orders` (`account_id`,`test`,`blocked`,`created_at`);