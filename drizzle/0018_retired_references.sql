CREATE TABLE `retired_references` (
	`reference` text PRIMARY KEY NOT NULL
);
