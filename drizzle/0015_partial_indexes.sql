-- Issue 11, rows written per create (bench/RESULTS.md): three indexes held an entry for every row
-- although every query of theirs asks only for some: the lines' dispatch (a new line has none), the
-- orders the pipeline owes routing (routed_at null), the orders by completion (completed_at set).
-- Partial now, a create of a 3-line order writes 4 index entries fewer, and routing one deletes its
-- unrouted entry instead of moving it. The queries are unchanged: each implies the index's WHERE.
DROP INDEX `order_lines_dispatch_idx`;--> statement-breakpoint
CREATE INDEX `order_lines_dispatch_idx` ON `order_lines` (`dispatch_id`) WHERE "order_lines"."dispatch_id" IS NOT NULL;--> statement-breakpoint
DROP INDEX `orders_unrouted_idx`;--> statement-breakpoint
DROP INDEX `orders_account_test_completed_idx`;--> statement-breakpoint
CREATE INDEX `orders_unrouted_idx` ON `orders` (`routed_at`,`route_requested_at`) WHERE "orders"."routed_at" IS NULL;--> statement-breakpoint
CREATE INDEX `orders_account_test_completed_idx` ON `orders` (`account_id`,`test`,`completed_at`,`created_at`) WHERE "orders"."completed_at" IS NOT NULL;