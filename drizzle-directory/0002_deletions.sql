CREATE TABLE `directory_deletions` (
	`account_id` integer PRIMARY KEY NOT NULL,
	`shard` integer NOT NULL,
	`phase` text NOT NULL,
	`table_index` integer DEFAULT 0 NOT NULL,
	`rows_deleted` integer DEFAULT 0 NOT NULL,
	`objects_deleted` integer DEFAULT 0 NOT NULL,
	`open_work` text NOT NULL,
	`started_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`finished_at` text
);
