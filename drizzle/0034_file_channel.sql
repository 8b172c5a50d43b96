CREATE TABLE `inbound_file_rows` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`file_id` integer NOT NULL,
	`row` integer NOT NULL,
	`line_id` integer,
	`action` text,
	`result` text NOT NULL,
	`message` text,
	FOREIGN KEY (`file_id`) REFERENCES `inbound_files`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_file_rows_file_row_uq` ON `inbound_file_rows` (`file_id`,`row`);--> statement-breakpoint
CREATE TABLE `inbound_files` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`account_id` integer NOT NULL,
	`supplier_id` integer NOT NULL,
	`name` text NOT NULL,
	`size` integer NOT NULL,
	`modified_at` text NOT NULL,
	`status` text NOT NULL,
	`rows_applied` integer DEFAULT 0 NOT NULL,
	`rows_refused` integer DEFAULT 0 NOT NULL,
	`error` text,
	`archived_to` text,
	`claimed_at` text NOT NULL,
	`finished_at` text,
	FOREIGN KEY (`account_id`) REFERENCES `accounts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`supplier_id`) REFERENCES `suppliers`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `inbound_files_claim_uq` ON `inbound_files` (`supplier_id`,`name`,`size`,`modified_at`);--> statement-breakpoint
CREATE INDEX `inbound_files_supplier_idx` ON `inbound_files` (`supplier_id`,`id`);--> statement-breakpoint
ALTER TABLE `suppliers` ADD `file_transfer` text;--> statement-breakpoint
ALTER TABLE `suppliers` ADD `file_transfer_secret` text;