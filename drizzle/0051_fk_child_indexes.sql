CREATE INDEX `order_line_logs_line_idx` ON `order_line_logs` (`order_line_id`);--> statement-breakpoint
CREATE INDEX `return_notices_order_idx` ON `return_notices` (`order_id`);