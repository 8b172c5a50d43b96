CREATE TABLE `accounts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE TABLE `api_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`name` text,
	`key_hash` text NOT NULL,
	`prefix` text NOT NULL,
	`expires_at` text,
	`revoked_at` text,
	`last_used_at` text,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_keys_key_hash_unique` ON `api_keys` (`key_hash`);--> statement-breakpoint
CREATE INDEX `api_keys_account_idx` ON `api_keys` (`account_id`);--> statement-breakpoint
CREATE TABLE `suppliers` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`name` text NOT NULL,
	`code` text,
	`active` integer DEFAULT true NOT NULL,
	`priority` integer DEFAULT 100 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `suppliers_account_name_uq` ON `suppliers` (`account_id`,`name`);--> statement-breakpoint
CREATE INDEX `suppliers_account_code_idx` ON `suppliers` (`account_id`,`code`);--> statement-breakpoint
CREATE TABLE `order_line_logs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_line_id` integer NOT NULL,
	`order_id` integer NOT NULL,
	`status` text NOT NULL,
	`message` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`order_line_id`) REFERENCES `order_lines`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `order_line_logs_order_idx` ON `order_line_logs` (`order_id`,`order_line_id`,`id`);--> statement-breakpoint
CREATE TABLE `order_lines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`order_id` integer NOT NULL,
	`account_id` integer NOT NULL,
	`position` integer NOT NULL,
	`external_id` text NOT NULL,
	`name` text NOT NULL,
	`ean13` text,
	`reference` text,
	`quantity` integer NOT NULL,
	`stock_quantity` integer,
	`price` real NOT NULL,
	`purchase_price` real,
	`brand` text,
	`category` text,
	`supplier` text,
	`image_url` text,
	`custom` text,
	`current_status` text DEFAULT 'pending' NOT NULL,
	`matched_supplier_id` integer,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`matched_supplier_id`) REFERENCES `suppliers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `order_lines_order_idx` ON `order_lines` (`order_id`,`position`);--> statement-breakpoint
CREATE INDEX `order_lines_account_status_idx` ON `order_lines` (`account_id`,`current_status`,`order_id`);--> statement-breakpoint
CREATE INDEX `order_lines_account_supplier_idx` ON `order_lines` (`account_id`,`matched_supplier_id`,`order_id`);--> statement-breakpoint
CREATE TABLE `orders` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`reference` text NOT NULL,
	`external_id` text NOT NULL,
	`source` text NOT NULL,
	`test` integer DEFAULT false NOT NULL,
	`blocked` integer DEFAULT false NOT NULL,
	`total` real NOT NULL,
	`email` text,
	`shipping_cost` real,
	`shipping_name` text,
	`shipping_description` text,
	`shipping_note` text,
	`shipping_delivery_date` text,
	`first_name` text NOT NULL,
	`last_name` text NOT NULL,
	`company_name` text,
	`address1` text NOT NULL,
	`address2` text,
	`postcode` text NOT NULL,
	`city` text NOT NULL,
	`state` text,
	`country` text NOT NULL,
	`phone` text,
	`custom` text,
	`completed_at` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `orders_reference_unique` ON `orders` (`reference`);--> statement-breakpoint
CREATE UNIQUE INDEX `orders_account_external_uq` ON `orders` (`account_id`,`external_id`);--> statement-breakpoint
CREATE INDEX `orders_account_created_idx` ON `orders` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `orders_account_test_created_idx` ON `orders` (`account_id`,`test`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `orders_account_total_idx` ON `orders` (`account_id`,`total`);--> statement-breakpoint
CREATE INDEX `orders_account_completed_idx` ON `orders` (`account_id`,`completed_at`);--> statement-breakpoint
CREATE INDEX `orders_account_blocked_created_idx` ON `orders` (`account_id`,`blocked`,`created_at`);--> statement-breakpoint
CREATE TABLE `product_feeds` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`supplier_id` integer NOT NULL,
	`name` text NOT NULL,
	`format` text NOT NULL,
	`mapping` text,
	`url` text,
	`schedule` text,
	`active` integer DEFAULT true NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`supplier_id`) REFERENCES `suppliers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `product_feeds_account_idx` ON `product_feeds` (`account_id`,`id`);--> statement-breakpoint
CREATE TABLE `products` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`product_feed_id` integer NOT NULL,
	`sku` text NOT NULL,
	`ean13` text,
	`name` text NOT NULL,
	`purchase_price` real,
	`stock_quantity` integer,
	`active` integer DEFAULT 1 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`product_feed_id`) REFERENCES `product_feeds`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `products_feed_sku_uq` ON `products` (`product_feed_id`,`sku`);--> statement-breakpoint
CREATE INDEX `products_account_id_idx` ON `products` (`account_id`,`id`);--> statement-breakpoint
CREATE INDEX `products_account_ean_idx` ON `products` (`account_id`,`ean13`);--> statement-breakpoint
CREATE INDEX `products_account_sku_idx` ON `products` (`account_id`,`sku`);