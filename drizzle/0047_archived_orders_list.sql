-- Issue 36, the archived orders' list at a cost that does not grow with the account's archive
-- (docs/archive.md, "Lists"). Written by hand after drizzle-kit generate: it splits an expression
-- index's commas into columns.
-- `q` finds an archived order by its external_id whole and its e-mail address whole or by its start,
-- each keyed as searchKey() keys them (whitespace dropped, ASCII lower-cased): an index range each.
CREATE INDEX `archived_orders_account_external_key_idx` ON `archived_orders` (`account_id`, lower(replace(replace(replace(replace("external_id", ' ', ''), char(9), ''), char(10), ''), char(13), '')));
--> statement-breakpoint
CREATE INDEX `archived_orders_account_email_key_idx` ON `archived_orders` (`account_id`, lower(replace(replace(replace(replace("email", ' ', ''), char(9), ''), char(10), ''), char(13), '')));
--> statement-breakpoint
-- The archived list's counts in the counters, as the live list's (src/db/schema/counts.ts): per account
-- and test flag, kind archived (key ''), archived.source (the source lower-cased) and archived.mask
-- (the stub's line statuses bits). A stub is inserted once and deleted once (an account's move copies
-- its stubs, whose inserts count them on the new shard; the old shard's counters go with the account).
CREATE TRIGGER `archived_orders_count_insert` AFTER INSERT ON archived_orders BEGIN
	INSERT INTO counters (account_id, test, kind, key, n)
		VALUES (NEW.account_id, NEW.test, 'archived', '', 1), (NEW.account_id, NEW.test, 'archived.source', lower(NEW.source), 1),
			(NEW.account_id, NEW.test, 'archived.mask', CAST(NEW.statuses AS TEXT), 1)
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `archived_orders_count_delete` AFTER DELETE ON archived_orders BEGIN
	INSERT INTO counters (account_id, test, kind, key, n)
		VALUES (OLD.account_id, OLD.test, 'archived', '', -1), (OLD.account_id, OLD.test, 'archived.source', lower(OLD.source), -1),
			(OLD.account_id, OLD.test, 'archived.mask', CAST(OLD.statuses AS TEXT), -1)
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
-- The stubs already there (this migration runs on live databases).
INSERT INTO counters (account_id, test, kind, key, n)
SELECT account_id, test, kind, key, count(*) FROM (
	SELECT account_id, test, 'archived' AS kind, '' AS key FROM archived_orders
	UNION ALL SELECT account_id, test, 'archived.source', lower(source) FROM archived_orders
	UNION ALL SELECT account_id, test, 'archived.mask', CAST(statuses AS TEXT) FROM archived_orders
) GROUP BY account_id, test, kind, key
ON CONFLICT DO UPDATE SET n = n + excluded.n;
