ALTER TABLE `shop_write_back_attempts` ADD `outcome` text DEFAULT 'written' NOT NULL;--> statement-breakpoint
ALTER TABLE `shop_write_backs` ADD `attempt_started_at` text;--> statement-breakpoint
ALTER TABLE `shop_write_backs` ADD `interrupted` text;--> statement-breakpoint
-- Attempts recorded before outcomes were: an error is a failed attempt; the last attempt of a skipped write-back without one was skipped.
UPDATE `shop_write_back_attempts` SET `outcome` = 'failed' WHERE `error` IS NOT NULL;--> statement-breakpoint
UPDATE `shop_write_back_attempts` SET `outcome` = 'skipped' WHERE `error` IS NULL
  AND `id` = (SELECT max(a.`id`) FROM `shop_write_back_attempts` a WHERE a.`write_back_id` = `shop_write_back_attempts`.`write_back_id`)
  AND (SELECT w.`status` FROM `shop_write_backs` w WHERE w.`id` = `shop_write_back_attempts`.`write_back_id`) = 'skipped';
