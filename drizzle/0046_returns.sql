CREATE TABLE `return_lines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`return_id` integer NOT NULL,
	`account_id` integer NOT NULL,
	`order_id` integer NOT NULL,
	`order_line_id` integer NOT NULL,
	`quantity` integer NOT NULL,
	`reason` text,
	`received_quantity` integer,
	`condition` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`return_id`) REFERENCES `returns`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`order_line_id`) REFERENCES `order_lines`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `return_lines_return_idx` ON `return_lines` (`return_id`);--> statement-breakpoint
CREATE INDEX `return_lines_line_idx` ON `return_lines` (`order_line_id`);--> statement-breakpoint
CREATE TABLE `return_logs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`return_id` integer NOT NULL,
	`return_line_id` integer,
	`status` text NOT NULL,
	`message` text NOT NULL,
	`actor` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`return_id`) REFERENCES `returns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `return_logs_return_idx` ON `return_logs` (`return_id`,`id`);--> statement-breakpoint
CREATE TABLE `return_notices` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`order_id` integer NOT NULL,
	`supplier_id` integer NOT NULL,
	`channel` text NOT NULL,
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
	`return_id` integer NOT NULL,
	`kind` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`supplier_id`) REFERENCES `suppliers`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`return_id`) REFERENCES `returns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `return_notices_idempotency_key_unique` ON `return_notices` (`idempotency_key`);--> statement-breakpoint
CREATE INDEX `return_notices_return_idx` ON `return_notices` (`return_id`);--> statement-breakpoint
CREATE INDEX `return_notices_status_updated_idx` ON `return_notices` (`status`,`updated_at`);--> statement-breakpoint
CREATE UNIQUE INDEX `return_notices_return_kind_uq` ON `return_notices` (`return_id`,`kind`);--> statement-breakpoint
CREATE TABLE `returns` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`order_id` integer NOT NULL,
	`supplier_id` integer NOT NULL,
	`status` text NOT NULL,
	`request_key` text NOT NULL,
	`note` text,
	`forced` integer DEFAULT false NOT NULL,
	`rma` text,
	`return_address` text,
	`label_url` text,
	`decline_reason` text,
	`customer_tracking` text,
	`customer_carrier` text,
	`credit_amount` integer,
	`credit_currency` text,
	`close_reason` text,
	`cancel_reason` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`waiting_since` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`supplier_id`) REFERENCES `suppliers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `returns_request_key_unique` ON `returns` (`request_key`);--> statement-breakpoint
CREATE INDEX `returns_account_status_idx` ON `returns` (`account_id`,`status`,`id`);--> statement-breakpoint
CREATE INDEX `returns_account_created_idx` ON `returns` (`account_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `returns_order_idx` ON `returns` (`order_id`);--> statement-breakpoint
CREATE INDEX `returns_supplier_status_idx` ON `returns` (`supplier_id`,`status`,`id`);--> statement-breakpoint
CREATE TABLE `supplier_return_settings` (
	`supplier_id` integer PRIMARY KEY NOT NULL,
	`account_id` integer NOT NULL,
	`auto_authorise` integer DEFAULT false NOT NULL,
	`return_address` text,
	`window_days` integer DEFAULT 30 NOT NULL,
	`answer_within_hours` integer,
	`updated_at` text DEFAULT '' NOT NULL,
	FOREIGN KEY (`supplier_id`) REFERENCES `suppliers`(`id`) ON UPDATE no action ON DELETE no action
);
