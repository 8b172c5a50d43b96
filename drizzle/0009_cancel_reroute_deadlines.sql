CREATE TABLE `cancellation_lines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`cancellation_id` integer NOT NULL,
	`account_id` integer NOT NULL,
	`order_id` integer NOT NULL,
	`order_line_id` integer NOT NULL,
	`supplier_id` integer NOT NULL,
	`purpose` text NOT NULL,
	`quantity` integer NOT NULL,
	`status` text NOT NULL,
	`answered_by` text,
	`answer_reason` text,
	`created_at` text NOT NULL,
	`answered_at` text,
	FOREIGN KEY (`cancellation_id`) REFERENCES `cancellations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`order_line_id`) REFERENCES `order_lines`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `cancellation_lines_cancellation_idx` ON `cancellation_lines` (`cancellation_id`);--> statement-breakpoint
CREATE INDEX `cancellation_lines_line_idx` ON `cancellation_lines` (`order_line_id`,`status`);--> statement-breakpoint
CREATE UNIQUE INDEX `cancellation_lines_open_uq` ON `cancellation_lines` (`order_line_id`) WHERE "cancellation_lines"."status" = 'requested' AND "cancellation_lines"."purpose" = 'cancel';--> statement-breakpoint
CREATE TABLE `cancellations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`order_id` integer NOT NULL,
	`supplier_id` integer NOT NULL,
	`channel` text NOT NULL,
	`purpose` text NOT NULL,
	`reason` text,
	`status` text NOT NULL,
	`idempotency_key` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`lease_until` text,
	`last_error` text,
	`payload` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`sent_at` text,
	`acknowledged_at` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`supplier_id`) REFERENCES `suppliers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `cancellations_idempotency_key_unique` ON `cancellations` (`idempotency_key`);--> statement-breakpoint
CREATE INDEX `cancellations_order_idx` ON `cancellations` (`order_id`);--> statement-breakpoint
CREATE INDEX `cancellations_supplier_status_idx` ON `cancellations` (`supplier_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `cancellations_account_status_idx` ON `cancellations` (`account_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `cancellations_status_updated_idx` ON `cancellations` (`status`,`updated_at`);--> statement-breakpoint
CREATE INDEX `cancellations_status_lease_idx` ON `cancellations` (`status`,`lease_until`);--> statement-breakpoint
ALTER TABLE `accounts` ADD `reroute_enabled` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `accounts` ADD `reroute_max_attempts` integer DEFAULT 3 NOT NULL;--> statement-breakpoint
ALTER TABLE `suppliers` ADD `ack_deadline_hours` integer;--> statement-breakpoint
ALTER TABLE `suppliers` ADD `ack_deadline_reroute` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `suppliers` ADD `ship_deadline_days` integer;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `split_from_line_id` integer;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `reroute_chain` text;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `reroute_reason` text;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `ack_due_at` text;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `ship_due_at` text;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `overdue_at` text;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `overdue_deadline` text;--> statement-breakpoint
ALTER TABLE `order_lines` ADD `deadline_token` text;--> statement-breakpoint
CREATE INDEX `order_lines_ack_due_idx` ON `order_lines` (`ack_due_at`) WHERE "order_lines"."ack_due_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `order_lines_ship_due_idx` ON `order_lines` (`ship_due_at`) WHERE "order_lines"."ship_due_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `order_lines_account_overdue_idx` ON `order_lines` (`account_id`,`overdue_at`) WHERE "order_lines"."overdue_at" IS NOT NULL;--> statement-breakpoint
ALTER TABLE `routing_rules` ADD `no_reroute` integer DEFAULT false NOT NULL;