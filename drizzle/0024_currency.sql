ALTER TABLE `accounts` ADD `currency` text DEFAULT 'EUR' NOT NULL;--> statement-breakpoint
ALTER TABLE `orders` ADD `currency` text;