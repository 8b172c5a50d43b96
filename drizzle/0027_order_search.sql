-- Issue 22, "find any order": `q` on the order list finds an order by its reference, external_id,
-- customer's name, e-mail or postcode, exactly (not by a part of it), each value normalised: every
-- space, tab and line break dropped, ASCII letters lower-cased (SQLite's lower(); searchKey() in
-- src/orders/list.query.ts is its twin). One row per order and distinct key; counters kind
-- orders.search counts the orders per key, so a search's count is one counter and its page a walk
-- of one key's range newest first, whatever the account's size (docs/api.md, "q").
-- Derived from orders by the triggers below in the same statement as the write (a shard move's
-- copy included); the application never writes it. WITHOUT ROWID: the primary key is the only b-tree.
CREATE TABLE `order_search_keys` (
	`account_id` integer NOT NULL,
	`test` integer NOT NULL,
	`key` text NOT NULL,
	`created_at` text NOT NULL,
	`order_id` integer NOT NULL,
	PRIMARY KEY(`account_id`, `test`, `key`, `created_at`, `order_id`)
) WITHOUT ROWID;
--> statement-breakpoint
-- An order's search keys, one row per field that has a value (a key may come twice: DISTINCT where read).
CREATE VIEW `order_search_rows` AS
SELECT o.id AS order_id, o.account_id, o.test, o.created_at, k.value AS key
FROM orders o, json_each(json_array(o.reference, o.external_id, o.first_name, o.last_name, o.first_name || o.last_name,
	o.company_name, o.email, o.postcode)) k
WHERE k.value IS NOT NULL;
--> statement-breakpoint
CREATE VIEW `order_search_keyed` AS
SELECT DISTINCT order_id, account_id, test, created_at,
	lower(replace(replace(replace(replace(key, ' ', ''), char(9), ''), char(10), ''), char(13), '')) AS key
FROM order_search_rows;
--> statement-breakpoint
-- The orders already there (this migration runs on a live database).
INSERT INTO order_search_keys (account_id, test, key, created_at, order_id)
SELECT account_id, test, key, created_at, order_id FROM order_search_keyed WHERE key != '';
--> statement-breakpoint
INSERT INTO counters (account_id, test, kind, key, n)
SELECT account_id, test, 'orders.search', key, count(*) FROM order_search_keys GROUP BY account_id, test, key;
--> statement-breakpoint
-- An order's keys change through one place: a row "inserted" into the view order_search_changes
-- puts in (sign 1) or takes out (sign -1) every key of the order as its row now reads.
CREATE VIEW `order_search_changes` AS SELECT NULL AS order_id, NULL AS sign WHERE 0;
--> statement-breakpoint
CREATE TRIGGER `order_search_changes_apply` INSTEAD OF INSERT ON order_search_changes BEGIN
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT account_id, test, 'orders.search', key, NEW.sign FROM order_search_keyed WHERE order_id = NEW.order_id AND key != ''
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
	DELETE FROM order_search_keys WHERE NEW.sign < 0 AND (account_id, test, key, created_at, order_id) IN
		(SELECT account_id, test, key, created_at, order_id FROM order_search_keyed WHERE order_id = NEW.order_id);
	INSERT INTO order_search_keys (account_id, test, key, created_at, order_id)
		SELECT account_id, test, key, created_at, order_id FROM order_search_keyed WHERE NEW.sign > 0 AND order_id = NEW.order_id AND key != '';
END;
--> statement-breakpoint
CREATE TRIGGER `order_search_insert` AFTER INSERT ON orders BEGIN
	INSERT INTO order_search_changes VALUES (NEW.id, 1);
END;
--> statement-breakpoint
-- An update of a searched column takes out the old row's keys (BEFORE: the table still holds it)
-- and puts in the new one's (AFTER).
CREATE TRIGGER `order_search_update_before` BEFORE UPDATE OF account_id, test, created_at, reference, external_id, first_name, last_name, company_name, email, postcode ON orders
WHEN OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.created_at IS NOT NEW.created_at OR OLD.reference IS NOT NEW.reference
	OR OLD.external_id IS NOT NEW.external_id OR OLD.first_name IS NOT NEW.first_name OR OLD.last_name IS NOT NEW.last_name
	OR OLD.company_name IS NOT NEW.company_name OR OLD.email IS NOT NEW.email OR OLD.postcode IS NOT NEW.postcode
BEGIN
	INSERT INTO order_search_changes VALUES (OLD.id, -1);
END;
--> statement-breakpoint
CREATE TRIGGER `order_search_update_after` AFTER UPDATE OF account_id, test, created_at, reference, external_id, first_name, last_name, company_name, email, postcode ON orders
WHEN OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.created_at IS NOT NEW.created_at OR OLD.reference IS NOT NEW.reference
	OR OLD.external_id IS NOT NEW.external_id OR OLD.first_name IS NOT NEW.first_name OR OLD.last_name IS NOT NEW.last_name
	OR OLD.company_name IS NOT NEW.company_name OR OLD.email IS NOT NEW.email OR OLD.postcode IS NOT NEW.postcode
BEGIN
	INSERT INTO order_search_changes VALUES (NEW.id, 1);
END;
--> statement-breakpoint
CREATE TRIGGER `order_search_delete` BEFORE DELETE ON orders BEGIN
	INSERT INTO order_search_changes VALUES (OLD.id, -1);
END;
