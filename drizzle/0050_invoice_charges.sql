ALTER TABLE `supplier_invoice_lines` ADD `currency` text;--> statement-breakpoint
ALTER TABLE `supplier_invoice_lines` ADD `charges` text;--> statement-breakpoint
ALTER TABLE `supplier_invoice_lines` ADD `invoice_charges` text;