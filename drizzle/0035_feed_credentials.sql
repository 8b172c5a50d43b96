ALTER TABLE `product_feeds` ADD `credentials` text;--> statement-breakpoint
ALTER TABLE `product_feeds` ADD `credentials_secret` text;