CREATE TABLE `sweeper_runs` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`scheduled_at` text NOT NULL,
	`started_at` text NOT NULL,
	`finished_at` text NOT NULL,
	`counts` text NOT NULL,
	`errors` text
);
--> statement-breakpoint
CREATE INDEX `sweeper_runs_started_idx` ON `sweeper_runs` (`started_at`);--> statement-breakpoint
CREATE INDEX `webhook_deliveries_status_idx` ON `webhook_deliveries` (`status`,`id`);