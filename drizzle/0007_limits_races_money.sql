-- Issue 10. Money columns become exact INTEGER ten-thousandths: the tables are rebuilt and every
-- amount converted with CAST(round(x * 10000) AS INTEGER) (round() is half away from zero; a REAL
-- written from a decimal with at most 4 places lands within 1e-6 units of an integer). Existing
-- orders get route_requested_at = created_at and no routing attempts.
-- Foreign keys stay enforced (D1 runs a migration as one transaction): they are deferred, and each
-- table is copied aside, dropped (which counts its children as violations), created anew under its
-- own name and refilled with every id, which resolves each of those violations again before the
-- commit. (Drizzle's rename of a new table would leave them counted.)
CREATE TABLE `batch_guards` (
	`ok` integer NOT NULL,
	CONSTRAINT "batch_guard_lost_race" CHECK("batch_guards"."ok" = 1)
);
--> statement-breakpoint
CREATE TABLE `dead_letters` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`message_id` text NOT NULL,
	`queue` text NOT NULL,
	`type` text NOT NULL,
	`body` text NOT NULL,
	`account_id` integer,
	`order_id` integer,
	`dispatch_id` integer,
	`status` text DEFAULT 'open' NOT NULL,
	`received_at` text NOT NULL,
	`replayed_at` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `dead_letters_message_uq` ON `dead_letters` (`message_id`);--> statement-breakpoint
CREATE INDEX `dead_letters_status_idx` ON `dead_letters` (`status`,`id`);--> statement-breakpoint
PRAGMA defer_foreign_keys = on;--> statement-breakpoint
CREATE TABLE `__old_orders` AS SELECT * FROM `orders`;--> statement-breakpoint
DROP TABLE `orders`;--> statement-breakpoint
CREATE TABLE `orders` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`reference` text NOT NULL,
	`external_id` text NOT NULL,
	`source` text NOT NULL,
	`test` integer DEFAULT false NOT NULL,
	`blocked` integer DEFAULT false NOT NULL,
	`total` integer NOT NULL,
	`email` text,
	`shipping_cost` integer,
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
	`routed_at` text,
	`route_requested_at` text NOT NULL,
	`routing_attempts` integer DEFAULT 0 NOT NULL,
	`parked_at` text,
	`routing_error` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `orders`("id", "account_id", "reference", "external_id", "source", "test", "blocked", "total", "email", "shipping_cost", "shipping_name", "shipping_description", "shipping_note", "shipping_delivery_date", "first_name", "last_name", "company_name", "address1", "address2", "postcode", "city", "state", "country", "phone", "custom", "completed_at", "routed_at", "route_requested_at", "routing_attempts", "parked_at", "routing_error", "created_at", "updated_at") SELECT "id", "account_id", "reference", "external_id", "source", "test", "blocked", CAST(round("total" * 10000) AS INTEGER), "email", CAST(round("shipping_cost" * 10000) AS INTEGER), "shipping_name", "shipping_description", "shipping_note", "shipping_delivery_date", "first_name", "last_name", "company_name", "address1", "address2", "postcode", "city", "state", "country", "phone", "custom", "completed_at", "routed_at", "created_at", 0, NULL, NULL, "created_at", "updated_at" FROM `__old_orders`;--> statement-breakpoint
DROP TABLE `__old_orders`;--> statement-breakpoint
CREATE UNIQUE INDEX `orders_reference_unique` ON `orders` (`reference`);--> statement-breakpoint
CREATE UNIQUE INDEX `orders_account_external_uq` ON `orders` (`account_id`,`external_id`);--> statement-breakpoint
CREATE INDEX `orders_account_created_idx` ON `orders` (`account_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `orders_account_test_created_idx` ON `orders` (`account_id`,`test`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `orders_account_total_idx` ON `orders` (`account_id`,`total`);--> statement-breakpoint
CREATE INDEX `orders_account_completed_idx` ON `orders` (`account_id`,`completed_at`);--> statement-breakpoint
CREATE INDEX `orders_account_blocked_created_idx` ON `orders` (`account_id`,`blocked`,`created_at`);--> statement-breakpoint
CREATE INDEX `orders_unrouted_idx` ON `orders` (`routed_at`,`route_requested_at`);--> statement-breakpoint
CREATE INDEX `orders_parked_idx` ON `orders` (`parked_at`) WHERE "orders"."parked_at" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `orders_account_test_total_idx` ON `orders` (`account_id`,`test`,`total`,`created_at`);--> statement-breakpoint
CREATE INDEX `orders_account_test_completed_idx` ON `orders` (`account_id`,`test`,`completed_at`,`created_at`);--> statement-breakpoint
CREATE INDEX `orders_account_test_blocked_idx` ON `orders` (`account_id`,`test`,`blocked`,`created_at`);--> statement-breakpoint
CREATE INDEX `orders_account_source_idx` ON `orders` (`account_id`,"source" COLLATE NOCASE,`created_at`);--> statement-breakpoint
CREATE INDEX `orders_account_test_source_idx` ON `orders` (`account_id`,`test`,"source" COLLATE NOCASE,`created_at`);--> statement-breakpoint
CREATE TABLE `__old_order_lines` AS SELECT * FROM `order_lines`;--> statement-breakpoint
DROP TABLE `order_lines`;--> statement-breakpoint
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
	`price` integer NOT NULL,
	`purchase_price` integer,
	`brand` text,
	`category` text,
	`supplier` text,
	`image_url` text,
	`custom` text,
	`height` real,
	`width` real,
	`length` real,
	`weight` real,
	`current_status` text DEFAULT 'pending' NOT NULL,
	`matched_supplier_id` integer,
	`dispatch_id` integer,
	`confirmed_quantity` integer,
	`move_token` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`order_id`) REFERENCES `orders`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`matched_supplier_id`) REFERENCES `suppliers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `order_lines`("id", "order_id", "account_id", "position", "external_id", "name", "ean13", "reference", "quantity", "stock_quantity", "price", "purchase_price", "brand", "category", "supplier", "image_url", "custom", "height", "width", "length", "weight", "current_status", "matched_supplier_id", "dispatch_id", "confirmed_quantity", "move_token", "created_at", "updated_at") SELECT "id", "order_id", "account_id", "position", "external_id", "name", "ean13", "reference", "quantity", "stock_quantity", CAST(round("price" * 10000) AS INTEGER), CAST(round("purchase_price" * 10000) AS INTEGER), "brand", "category", "supplier", "image_url", "custom", "height", "width", "length", "weight", "current_status", "matched_supplier_id", "dispatch_id", "confirmed_quantity", NULL, "created_at", "updated_at" FROM `__old_order_lines`;--> statement-breakpoint
DROP TABLE `__old_order_lines`;--> statement-breakpoint
CREATE INDEX `order_lines_order_idx` ON `order_lines` (`order_id`,`position`);--> statement-breakpoint
CREATE INDEX `order_lines_account_status_idx` ON `order_lines` (`account_id`,`current_status`,`order_id`);--> statement-breakpoint
CREATE INDEX `order_lines_account_supplier_idx` ON `order_lines` (`account_id`,`matched_supplier_id`,`order_id`);--> statement-breakpoint
CREATE INDEX `order_lines_dispatch_idx` ON `order_lines` (`dispatch_id`);--> statement-breakpoint
CREATE TABLE `__old_product_import_rows` AS SELECT * FROM `product_import_rows`;--> statement-breakpoint
DROP TABLE `product_import_rows`;--> statement-breakpoint
CREATE TABLE `product_import_rows` (
	`id` integer PRIMARY KEY NOT NULL,
	`import_id` integer NOT NULL,
	`line` integer NOT NULL,
	`sku` text NOT NULL,
	`ean13` text,
	`name` text NOT NULL,
	`purchase_price` integer,
	`stock_quantity` integer,
	`active` integer NOT NULL,
	`rejected` integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
INSERT INTO `product_import_rows`("id", "import_id", "line", "sku", "ean13", "name", "purchase_price", "stock_quantity", "active", "rejected") SELECT "id", "import_id", "line", "sku", "ean13", "name", CAST(round("purchase_price" * 10000) AS INTEGER), "stock_quantity", "active", "rejected" FROM `__old_product_import_rows`;--> statement-breakpoint
DROP TABLE `__old_product_import_rows`;--> statement-breakpoint
CREATE UNIQUE INDEX `product_import_rows_import_sku_uq` ON `product_import_rows` (`import_id`,`sku`);--> statement-breakpoint
CREATE TABLE `__old_products` AS SELECT * FROM `products`;--> statement-breakpoint
DROP TABLE `products`;--> statement-breakpoint
CREATE TABLE `products` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`product_feed_id` integer NOT NULL,
	`sku` text NOT NULL,
	`ean13` text,
	`name` text NOT NULL,
	`purchase_price` integer,
	`stock_quantity` integer,
	`active` integer DEFAULT 1 NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`product_feed_id`) REFERENCES `product_feeds`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
INSERT INTO `products`("id", "account_id", "product_feed_id", "sku", "ean13", "name", "purchase_price", "stock_quantity", "active", "created_at", "updated_at") SELECT "id", "account_id", "product_feed_id", "sku", "ean13", "name", CAST(round("purchase_price" * 10000) AS INTEGER), "stock_quantity", "active", "created_at", "updated_at" FROM `__old_products`;--> statement-breakpoint
DROP TABLE `__old_products`;--> statement-breakpoint
CREATE UNIQUE INDEX `products_feed_sku_uq` ON `products` (`product_feed_id`,`sku`);--> statement-breakpoint
CREATE INDEX `products_account_id_idx` ON `products` (`account_id`,`id`);--> statement-breakpoint
CREATE INDEX `products_account_ean_idx` ON `products` (`account_id`,`ean13`);--> statement-breakpoint
CREATE INDEX `products_account_sku_idx` ON `products` (`account_id`,`sku`);--> statement-breakpoint
CREATE INDEX `products_feed_id_idx` ON `products` (`product_feed_id`,`id`);--> statement-breakpoint
CREATE INDEX `products_account_updated_idx` ON `products` (`account_id`,`updated_at`);--> statement-breakpoint
ALTER TABLE `accounts` ADD `rematch_requested_at` text;--> statement-breakpoint
CREATE INDEX `accounts_rematch_idx` ON `accounts` (`rematch_requested_at`);--> statement-breakpoint
ALTER TABLE `shipments` ADD `batch_token` text;--> statement-breakpoint
CREATE INDEX `dispatches_status_updated_idx` ON `dispatches` (`status`,`updated_at`);--> statement-breakpoint
CREATE INDEX `dispatches_status_lease_idx` ON `dispatches` (`status`,`lease_until`);