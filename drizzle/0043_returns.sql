ALTER TABLE `returns` ADD `request_key` text NOT NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `returns_request_key_unique` ON `returns` (`request_key`);