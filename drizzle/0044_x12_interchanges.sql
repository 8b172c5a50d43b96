CREATE TABLE `supplier_invoice_lines` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`line_id` integer NOT NULL,
	`supplier_id` integer NOT NULL,
	`invoice_number` text NOT NULL,
	`quantity` integer NOT NULL,
	`unit_price` integer NOT NULL,
	`expected_unit_price` integer,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`line_id`) REFERENCES `order_lines`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`supplier_id`) REFERENCES `suppliers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `supplier_invoice_lines_uq` ON `supplier_invoice_lines` (`line_id`,`invoice_number`);--> statement-breakpoint
CREATE TABLE `x12_interchanges` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`supplier_id` integer NOT NULL,
	`direction` text NOT NULL,
	`control_number` integer NOT NULL,
	`document_key` text,
	`sets` text NOT NULL,
	`file_name` text NOT NULL,
	`inbound_file_id` integer,
	`dispatch_id` integer,
	`status` text NOT NULL,
	`note` text,
	`content` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`supplier_id`) REFERENCES `suppliers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `x12_interchanges_control_uq` ON `x12_interchanges` (`supplier_id`,`direction`,`control_number`);--> statement-breakpoint
CREATE UNIQUE INDEX `x12_interchanges_document_uq` ON `x12_interchanges` (`supplier_id`,`document_key`);--> statement-breakpoint
CREATE INDEX `x12_interchanges_dispatch_idx` ON `x12_interchanges` (`dispatch_id`);