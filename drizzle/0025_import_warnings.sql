ALTER TABLE `product_imports` ADD `unmapped_columns` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `product_imports` ADD `warnings` text DEFAULT '[]' NOT NULL;