-- Issue 12: every attempt at sending a dispatch, for the order page (the last 20; attempts keeps the
-- count). Appended by the UPDATE that already records each outcome; null for existing dispatches.
ALTER TABLE `dispatches` ADD `attempt_log` text;