-- Issue 31, "search by prefix": `q` also finds an order by the start of its customer's name, company,
-- city or e-mail, or of a product name on its lines (`Jans`, `piet@voorbeeld`, `Gron`), at the same
-- constant cost as a whole value: each prefix is a key of its own in order_search_keys (edge n-grams),
-- so a search is still one counter and one key's range walked newest first (docs/api.md, "q").
-- Keys, each normalised as searchKey() in src/orders/list.query.ts (whitespace dropped, ASCII lower-cased):
-- - whole values: reference, external_id, first name, last name, first and last name together,
--   company, e-mail, postcode (as 0027), and now the city and each line's product name;
-- - prefixes of 3 to 24 characters: of "first last", the company and the city from each of their
--   words on (`Vries` finds "de Vries"), of the e-mail, and of each product name.
-- An order's key may come from several of its values (a first name that is also a prefix, two lines
-- of one product): order_search_keys.n counts them, and the key leaves the order (and its counter)
-- when the last goes. The price is paid at write time: about 40 more keys for a usual order.
-- test/helpers/counts.ts recomputes all of it in JavaScript after the suite.
DROP TRIGGER IF EXISTS `order_search_changes_apply`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `order_search_insert`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `order_search_update_before`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `order_search_update_after`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `order_search_delete`;
--> statement-breakpoint
DROP VIEW IF EXISTS `order_search_changes`;
--> statement-breakpoint
DROP VIEW IF EXISTS `order_search_keyed`;
--> statement-breakpoint
DROP VIEW IF EXISTS `order_search_rows`;
--> statement-breakpoint
-- 1 to 511: the character positions of a value (the longest searched is "first last": 255 + 1 + 255).
CREATE TABLE `search_positions` (`i` integer PRIMARY KEY NOT NULL);
--> statement-breakpoint
INSERT INTO search_positions (i) WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 511) SELECT i FROM n;
--> statement-breakpoint
-- An order's own keys, one row per value that gives it (read with `WHERE order_id = …`, which SQLite
-- pushes into each arm: a primary-key lookup of the order). CROSS JOIN keeps the loops in this order:
-- each value, then its positions up to its length, then the prefix lengths of each word start (left
-- to itself SQLite put json_each innermost and read 511 × 22 positions per value: 46,793 rows per create).
CREATE VIEW `order_search_own_rows` AS
SELECT o.id AS order_id, o.account_id, o.test, o.created_at, lower(replace(replace(replace(replace(k.value, ' ', ''), char(9), ''), char(10), ''), char(13), '')) AS key
FROM orders o, json_each(json_array(o.reference, o.external_id, o.first_name, o.last_name, o.first_name || o.last_name,
	o.company_name, o.email, o.postcode, o.city)) k
WHERE k.value IS NOT NULL
UNION ALL
SELECT o.id, o.account_id, o.test, o.created_at, substr(lower(replace(replace(replace(replace(substr(k.value, w.i), ' ', ''), char(9), ''), char(10), ''), char(13), '')), 1, p.i)
FROM orders o CROSS JOIN json_each(json_array(o.first_name || ' ' || o.last_name, o.company_name, o.city)) k CROSS JOIN search_positions w CROSS JOIN search_positions p
WHERE k.value IS NOT NULL AND w.i <= length(k.value)
	AND substr(k.value, w.i, 1) NOT IN (' ', char(9), char(10), char(13)) AND (w.i = 1 OR substr(k.value, w.i - 1, 1) IN (' ', char(9), char(10), char(13)))
	AND p.i BETWEEN 3 AND 24 AND p.i <= length(lower(replace(replace(replace(replace(substr(k.value, w.i), ' ', ''), char(9), ''), char(10), ''), char(13), '')))
UNION ALL
SELECT o.id, o.account_id, o.test, o.created_at, substr(lower(replace(replace(replace(replace(o.email, ' ', ''), char(9), ''), char(10), ''), char(13), '')), 1, p.i)
FROM orders o CROSS JOIN search_positions p
WHERE o.email IS NOT NULL AND p.i BETWEEN 3 AND 24 AND p.i <= length(lower(replace(replace(replace(replace(o.email, ' ', ''), char(9), ''), char(10), ''), char(13), '')));
--> statement-breakpoint
-- A line's keys: its product name whole and its prefixes, under its order's account, flag and date.
CREATE VIEW `order_search_line_rows` AS
SELECT l.id AS line_id, o.id AS order_id, o.account_id, o.test, o.created_at, lower(replace(replace(replace(replace(l.name, ' ', ''), char(9), ''), char(10), ''), char(13), '')) AS key
FROM order_lines l JOIN orders o ON o.id = l.order_id
UNION ALL
SELECT l.id, o.id, o.account_id, o.test, o.created_at, substr(lower(replace(replace(replace(replace(l.name, ' ', ''), char(9), ''), char(10), ''), char(13), '')), 1, p.i)
FROM order_lines l JOIN orders o ON o.id = l.order_id CROSS JOIN search_positions p
WHERE p.i BETWEEN 3 AND 24 AND p.i <= length(lower(replace(replace(replace(replace(l.name, ' ', ''), char(9), ''), char(10), ''), char(13), '')));
--> statement-breakpoint
-- The one place keys change: a row "inserted" here gives the order `m` more (or, negative, fewer)
-- values with this key. A key new to the order counts one more order; a key whose last value goes
-- counts one fewer and leaves.
CREATE VIEW `order_search_deltas` AS SELECT NULL AS account_id, NULL AS test, NULL AS created_at, NULL AS order_id, NULL AS key, NULL AS m WHERE 0;
--> statement-breakpoint
CREATE TRIGGER `order_search_deltas_apply` INSTEAD OF INSERT ON order_search_deltas BEGIN
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT NEW.account_id, NEW.test, 'orders.search', NEW.key, 1 WHERE NEW.m > 0 AND NOT EXISTS (SELECT 1 FROM order_search_keys
			WHERE account_id = NEW.account_id AND test = NEW.test AND key = NEW.key AND created_at = NEW.created_at AND order_id = NEW.order_id)
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
	INSERT INTO order_search_keys (account_id, test, key, created_at, order_id, n)
		SELECT NEW.account_id, NEW.test, NEW.key, NEW.created_at, NEW.order_id, NEW.m WHERE NEW.m > 0
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
	UPDATE order_search_keys SET n = n + NEW.m
		WHERE NEW.m < 0 AND account_id = NEW.account_id AND test = NEW.test AND key = NEW.key AND created_at = NEW.created_at AND order_id = NEW.order_id;
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT NEW.account_id, NEW.test, 'orders.search', NEW.key, -1 WHERE NEW.m < 0 AND EXISTS (SELECT 1 FROM order_search_keys
			WHERE account_id = NEW.account_id AND test = NEW.test AND key = NEW.key AND created_at = NEW.created_at AND order_id = NEW.order_id AND n <= 0)
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
	DELETE FROM order_search_keys
		WHERE NEW.m < 0 AND account_id = NEW.account_id AND test = NEW.test AND key = NEW.key AND created_at = NEW.created_at AND order_id = NEW.order_id AND n <= 0;
END;
--> statement-breakpoint
CREATE TRIGGER `order_search_insert` AFTER INSERT ON orders BEGIN
	INSERT INTO order_search_deltas SELECT account_id, test, created_at, order_id, key, count(*) FROM order_search_own_rows
		WHERE order_id = NEW.id AND key != '' GROUP BY key;
END;
--> statement-breakpoint
-- An update of a searched column takes out the old row's keys (BEFORE: the table still holds it) and
-- puts in the new one's (AFTER); a new account, flag or date moves the lines' keys too (they are
-- keyed by them).
CREATE TRIGGER `order_search_update_before` BEFORE UPDATE OF account_id, test, created_at, reference, external_id, first_name, last_name, company_name, email, postcode, city ON orders
WHEN OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.created_at IS NOT NEW.created_at OR OLD.reference IS NOT NEW.reference
	OR OLD.external_id IS NOT NEW.external_id OR OLD.first_name IS NOT NEW.first_name OR OLD.last_name IS NOT NEW.last_name
	OR OLD.company_name IS NOT NEW.company_name OR OLD.email IS NOT NEW.email OR OLD.postcode IS NOT NEW.postcode OR OLD.city IS NOT NEW.city
BEGIN
	INSERT INTO order_search_deltas SELECT account_id, test, created_at, order_id, key, -count(*) FROM order_search_own_rows
		WHERE order_id = OLD.id AND key != '' GROUP BY key;
	INSERT INTO order_search_deltas SELECT account_id, test, created_at, order_id, key, -count(*) FROM order_search_line_rows
		WHERE order_id = OLD.id AND key != '' AND (OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.created_at IS NOT NEW.created_at)
		GROUP BY key;
END;
--> statement-breakpoint
CREATE TRIGGER `order_search_update_after` AFTER UPDATE OF account_id, test, created_at, reference, external_id, first_name, last_name, company_name, email, postcode, city ON orders
WHEN OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.created_at IS NOT NEW.created_at OR OLD.reference IS NOT NEW.reference
	OR OLD.external_id IS NOT NEW.external_id OR OLD.first_name IS NOT NEW.first_name OR OLD.last_name IS NOT NEW.last_name
	OR OLD.company_name IS NOT NEW.company_name OR OLD.email IS NOT NEW.email OR OLD.postcode IS NOT NEW.postcode OR OLD.city IS NOT NEW.city
BEGIN
	INSERT INTO order_search_deltas SELECT account_id, test, created_at, order_id, key, count(*) FROM order_search_own_rows
		WHERE order_id = NEW.id AND key != '' GROUP BY key;
	INSERT INTO order_search_deltas SELECT account_id, test, created_at, order_id, key, count(*) FROM order_search_line_rows
		WHERE order_id = NEW.id AND key != '' AND (OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.created_at IS NOT NEW.created_at)
		GROUP BY key;
END;
--> statement-breakpoint
-- Its lines are gone by now (they reference it, and take their keys with them): its own keys go.
CREATE TRIGGER `order_search_delete` BEFORE DELETE ON orders BEGIN
	INSERT INTO order_search_deltas SELECT account_id, test, created_at, order_id, key, -count(*) FROM order_search_own_rows
		WHERE order_id = OLD.id AND key != '' GROUP BY key;
END;
--> statement-breakpoint
CREATE TRIGGER `order_search_line_insert` AFTER INSERT ON order_lines BEGIN
	INSERT INTO order_search_deltas SELECT account_id, test, created_at, order_id, key, count(*) FROM order_search_line_rows
		WHERE line_id = NEW.id AND key != '' GROUP BY key;
END;
--> statement-breakpoint
CREATE TRIGGER `order_search_line_rename_before` BEFORE UPDATE OF name ON order_lines WHEN OLD.name IS NOT NEW.name BEGIN
	INSERT INTO order_search_deltas SELECT account_id, test, created_at, order_id, key, -count(*) FROM order_search_line_rows
		WHERE line_id = OLD.id AND key != '' GROUP BY key;
END;
--> statement-breakpoint
CREATE TRIGGER `order_search_line_rename_after` AFTER UPDATE OF name ON order_lines WHEN OLD.name IS NOT NEW.name BEGIN
	INSERT INTO order_search_deltas SELECT account_id, test, created_at, order_id, key, count(*) FROM order_search_line_rows
		WHERE line_id = NEW.id AND key != '' GROUP BY key;
END;
--> statement-breakpoint
CREATE TRIGGER `order_search_line_delete` BEFORE DELETE ON order_lines BEGIN
	INSERT INTO order_search_deltas SELECT account_id, test, created_at, order_id, key, -count(*) FROM order_search_line_rows
		WHERE line_id = OLD.id AND key != '' GROUP BY key;
END;
--> statement-breakpoint
-- The orders already there (this migration runs on a live database): every key and count afresh.
DELETE FROM order_search_keys;
--> statement-breakpoint
DELETE FROM counters WHERE kind = 'orders.search';
--> statement-breakpoint
INSERT INTO order_search_keys (account_id, test, key, created_at, order_id, n)
SELECT account_id, test, key, created_at, order_id, count(*) FROM (
	SELECT account_id, test, key, created_at, order_id FROM order_search_own_rows
	UNION ALL
	SELECT account_id, test, key, created_at, order_id FROM order_search_line_rows
) WHERE key != '' GROUP BY account_id, test, key, created_at, order_id;
--> statement-breakpoint
INSERT INTO counters (account_id, test, kind, key, n)
SELECT account_id, test, 'orders.search', key, count(*) FROM order_search_keys GROUP BY account_id, test, key;
