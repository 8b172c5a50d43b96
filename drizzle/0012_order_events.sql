-- drizzle-kit splits an expression column at its commas; the index is written by hand.
CREATE INDEX `events_account_order_idx` ON `events` (`account_id`, json_extract(`data`, '$.order.reference'), `created_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_event_idx` ON `webhook_deliveries` (`event_id`);
