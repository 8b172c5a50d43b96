-- Issue 11: the structures that make the order and product lists cost in proportion to the page.
-- (src/db/schema/counts.ts describes the tables; README, "GET /api/v1/orders", what they serve.)
--
-- Everything here is derived from orders, order_lines and products by triggers, inside the same
-- statement as the write it describes: whatever writes those tables (the lifecycle's set-based
-- moves, a future split of a line, a test's UPDATE, a shard copy) keeps counters, facets and the
-- external_id index exact without knowing about them. The views are the one definition of what an
-- order contributes; the triggers, the backfill below and bench/seed.mjs all use them.
-- A table rebuild of orders, order_lines or products drops their triggers: recreate them in the
-- same migration (test/invariants/counts.after-suite.test.ts fails otherwise).

-- WITHOUT ROWID: the primary key is the only b-tree (drizzle-kit cannot declare it; both are empty).
DROP TABLE `counters`;
--> statement-breakpoint
CREATE TABLE `counters` (
	`account_id` integer NOT NULL,
	`test` integer NOT NULL,
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`account_id`, `test`, `kind`, `key`)
) WITHOUT ROWID;
--> statement-breakpoint
DROP TABLE `order_facets`;
--> statement-breakpoint
CREATE TABLE `order_facets` (
	`account_id` integer NOT NULL,
	`test` integer NOT NULL,
	`kind` integer NOT NULL,
	`value` integer NOT NULL,
	`created_at` text NOT NULL,
	`order_id` integer NOT NULL,
	`n` integer NOT NULL,
	PRIMARY KEY(`account_id`, `test`, `kind`, `value`, `created_at`, `order_id`)
) WITHOUT ROWID;
--> statement-breakpoint
-- The codes are the order of LINE_STATUSES (src/db/schema/orders.ts); a state missing here makes
-- every write of a line in that state fail (the triggers raise), never miscount.
INSERT INTO `line_status_codes` (`code`, `status`) VALUES
	(0, 'pending'), (1, 'ruled'), (2, 'completed'), (3, 'partially_completed'), (4, 'failed'), (5, 'declined'), (6, 'skipped');
--> statement-breakpoint
-- external_id substring search: trigram tokens of lower(external_id) (ASCII folding, as LIKE and the
-- old instr(lower()) did), contentless; rowid = (account_id * 2 + test) * 2^32 + orders.id, so one
-- account (and test flag) is a rowid range the search stays inside.
CREATE VIRTUAL TABLE `orders_external_fts` USING fts5(external_id, content='', contentless_delete=1, tokenize='trigram case_sensitive 1');
--> statement-breakpoint

-- What the orders row contributes: (kind, key) per counter. One row of the spec per kind and level.
CREATE VIEW `order_row_keys` AS
WITH spec(family, level) AS MATERIALIZED (SELECT value ->> 0, value ->> 1 FROM json_each('[["orders"],["orders.blocked"],["orders.source"],
	["orders.created",4],["orders.created",7],["orders.created",10],["orders.created",13],
	["orders.completed",4],["orders.completed",7],["orders.completed",10],["orders.completed",13],
	["orders.total",1],["orders.total",2],["orders.total",3],["orders.total",4],["orders.total",5],
	["orders.total",6],["orders.total",7],["orders.total",8],["orders.total",9],["orders.total",10],
	["orders.total",11]]'))
SELECT * FROM (SELECT o.id AS order_id, o.account_id, o.test, s.family || coalesce(':' || s.level, '') AS kind,
	CASE s.family
		WHEN 'orders' THEN ''
		WHEN 'orders.blocked' THEN CASE WHEN o.blocked THEN '' END
		WHEN 'orders.source' THEN lower(o.source)
		WHEN 'orders.created' THEN substr(o.created_at, 1, s.level)
		WHEN 'orders.completed' THEN substr(o.completed_at, 1, s.level)
		-- Down to whole units of money (the total is in ten-thousandths): a bound inside a unit counts
		-- that unit's own orders from the total index.
		WHEN 'orders.total' THEN CASE WHEN s.level <= max(1, length(o.total) - 4) THEN printf('%02d', length(o.total)) || substr(o.total, 1, s.level) END
	END AS key
FROM orders o, spec s)
WHERE key IS NOT NULL;
--> statement-breakpoint
-- Which line states and suppliers an order has, from its lines: what order_facets holds.
CREATE VIEW `order_facet_rows` AS
SELECT o.account_id, o.test, 0 AS kind, c.code AS value, o.created_at, o.id AS order_id, count(*) AS n
FROM orders o JOIN order_lines l ON l.order_id = o.id JOIN line_status_codes c ON c.status = l.current_status
GROUP BY o.id, c.code
UNION ALL
SELECT o.account_id, o.test, 1, l.matched_supplier_id, o.created_at, o.id, count(*)
FROM orders o JOIN order_lines l ON l.order_id = o.id
WHERE l.matched_supplier_id IS NOT NULL
GROUP BY o.id, l.matched_supplier_id;
--> statement-breakpoint
-- What an order's facets contribute: its state mask, each supplier, each pair of its suppliers.
-- (Its suppliers are found through its lines, the facets' key holding no order-first index.)
CREATE VIEW `order_line_keys` AS
SELECT o.id AS order_id, o.account_id, o.test, 'orders.mask' AS kind,
	(SELECT coalesce(sum(1 << f.value), 0) FROM order_facets f
		WHERE f.account_id = o.account_id AND f.test = o.test AND f.kind = 0 AND f.value IN (SELECT code FROM line_status_codes)
			AND f.created_at = o.created_at AND f.order_id = o.id) AS key
FROM orders o
UNION ALL
SELECT o.id, o.account_id, o.test, 'orders.supplier', f.value
FROM orders o JOIN order_facets f ON f.account_id = o.account_id AND f.test = o.test AND f.kind = 1
	AND f.value IN (SELECT matched_supplier_id FROM order_lines WHERE order_id = o.id) AND f.created_at = o.created_at AND f.order_id = o.id
UNION ALL
SELECT o.id, o.account_id, o.test, 'orders.supplier_pair', a.value || ',' || b.value
FROM orders o
JOIN order_facets a ON a.account_id = o.account_id AND a.test = o.test AND a.kind = 1
	AND a.value IN (SELECT matched_supplier_id FROM order_lines WHERE order_id = o.id) AND a.created_at = o.created_at AND a.order_id = o.id
JOIN order_facets b ON b.account_id = o.account_id AND b.test = o.test AND b.kind = 1
	AND b.value IN (SELECT matched_supplier_id FROM order_lines WHERE order_id = o.id) AND b.created_at = o.created_at AND b.order_id = o.id
	AND b.value > a.value;
--> statement-breakpoint

-- The rows already there (this migration runs on a live database).
INSERT INTO order_facets (account_id, test, kind, value, created_at, order_id, n) SELECT * FROM order_facet_rows;
--> statement-breakpoint
INSERT INTO counters (account_id, test, kind, key, n)
SELECT account_id, test, kind, key, count(*) FROM (SELECT * FROM order_row_keys UNION ALL SELECT * FROM order_line_keys) GROUP BY 1, 2, 3, 4;
--> statement-breakpoint
INSERT INTO counters (account_id, test, kind, key, n)
SELECT account_id, 0, 'products', '', count(*) FROM products GROUP BY account_id
UNION ALL
SELECT account_id, 0, 'products.feed', product_feed_id, count(*) FROM products GROUP BY account_id, product_feed_id;
--> statement-breakpoint
INSERT INTO orders_external_fts (rowid, external_id) SELECT (account_id * 2 + test) * 4294967296 + id, lower(external_id) FROM orders;
--> statement-breakpoint

-- ---- orders -------------------------------------------------------------------------------------
-- What an order's row contributes changes through one place: a row "inserted" into the view
-- order_changes takes out (sign -1) or puts in (sign 1) the order's keys whose columns changed
-- (`moved`: its account or test flag, so all of them, those of its lines included).
CREATE VIEW `order_changes` AS
SELECT NULL AS order_id, NULL AS sign, NULL AS moved, NULL AS blocked, NULL AS source, NULL AS created, NULL AS completed, NULL AS total WHERE 0;
--> statement-breakpoint
CREATE TRIGGER `order_changes_apply` INSTEAD OF INSERT ON order_changes BEGIN
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT account_id, test, kind, key, NEW.sign FROM order_row_keys WHERE order_id = NEW.order_id
			AND (NEW.moved OR (kind = 'orders.blocked' AND NEW.blocked) OR (kind = 'orders.source' AND NEW.source)
				OR (kind GLOB 'orders.created:*' AND NEW.created) OR (kind GLOB 'orders.completed:*' AND NEW.completed)
				OR (kind GLOB 'orders.total:*' AND NEW.total))
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT account_id, test, kind, key, NEW.sign FROM order_line_keys WHERE order_id = NEW.order_id AND NEW.moved
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `orders_counts_insert` AFTER INSERT ON orders BEGIN
	INSERT INTO order_changes VALUES (NEW.id, 1, 1, 1, 1, 1, 1, 1);
	INSERT INTO orders_external_fts (rowid, external_id) VALUES ((NEW.account_id * 2 + NEW.test) * 4294967296 + NEW.id, lower(NEW.external_id));
END;
--> statement-breakpoint
-- An update takes out what the old row contributed (BEFORE: the table still holds it) and puts in
-- what the new one does (AFTER). A new created_at also moves the facets (their key holds it), as a
-- new account or test flag does.
CREATE TRIGGER `orders_counts_update_before` BEFORE UPDATE OF account_id, test, blocked, source, created_at, completed_at, total, external_id ON orders
WHEN OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.blocked IS NOT NEW.blocked OR OLD.source IS NOT NEW.source
	OR OLD.created_at IS NOT NEW.created_at OR OLD.completed_at IS NOT NEW.completed_at OR OLD.total IS NOT NEW.total OR OLD.external_id IS NOT NEW.external_id
BEGIN
	INSERT INTO order_changes VALUES (OLD.id, -1, OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test, OLD.blocked IS NOT NEW.blocked,
		OLD.source IS NOT NEW.source, OLD.created_at IS NOT NEW.created_at, OLD.completed_at IS NOT NEW.completed_at, OLD.total IS NOT NEW.total);
	DELETE FROM order_facets WHERE (account_id, test, kind, value, created_at, order_id) IN
		(SELECT account_id, test, kind, value, created_at, order_id FROM order_facet_rows WHERE order_id = OLD.id)
		AND (OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.created_at IS NOT NEW.created_at);
	DELETE FROM orders_external_fts WHERE rowid = (OLD.account_id * 2 + OLD.test) * 4294967296 + OLD.id
		AND (OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.external_id IS NOT NEW.external_id);
END;
--> statement-breakpoint
CREATE TRIGGER `orders_counts_update_after` AFTER UPDATE OF account_id, test, blocked, source, created_at, completed_at, total, external_id ON orders
WHEN OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.blocked IS NOT NEW.blocked OR OLD.source IS NOT NEW.source
	OR OLD.created_at IS NOT NEW.created_at OR OLD.completed_at IS NOT NEW.completed_at OR OLD.total IS NOT NEW.total OR OLD.external_id IS NOT NEW.external_id
BEGIN
	INSERT INTO order_facets (account_id, test, kind, value, created_at, order_id, n)
		SELECT * FROM order_facet_rows WHERE order_id = NEW.id
			AND (OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.created_at IS NOT NEW.created_at);
	INSERT INTO order_changes VALUES (NEW.id, 1, OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test, OLD.blocked IS NOT NEW.blocked,
		OLD.source IS NOT NEW.source, OLD.created_at IS NOT NEW.created_at, OLD.completed_at IS NOT NEW.completed_at, OLD.total IS NOT NEW.total);
	INSERT INTO orders_external_fts (rowid, external_id)
		SELECT (NEW.account_id * 2 + NEW.test) * 4294967296 + NEW.id, lower(NEW.external_id)
		WHERE OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.external_id IS NOT NEW.external_id;
END;
--> statement-breakpoint
-- Its lines are gone by now (they reference it): only the empty state mask is left of them.
CREATE TRIGGER `orders_counts_delete` BEFORE DELETE ON orders BEGIN
	INSERT INTO order_changes VALUES (OLD.id, -1, 1, 1, 1, 1, 1, 1);
	DELETE FROM order_facets WHERE (account_id, test, kind, value, created_at, order_id) IN
		(SELECT account_id, test, kind, value, created_at, order_id FROM order_facet_rows WHERE order_id = OLD.id);
	DELETE FROM orders_external_fts WHERE rowid = (OLD.account_id * 2 + OLD.test) * 4294967296 + OLD.id;
END;
--> statement-breakpoint

-- ---- order_lines ----------------------------------------------------------------------------------
-- Every change of a line (inserted, moved, rematched, deleted) is one row "inserted" into the view
-- order_line_changes, whose INSTEAD OF trigger is the one place that applies it, in O(1): the order's
-- state mask counter leaves the mask before; the line leaves the facets of its old state and
-- supplier (a facet gone at none) and joins those of the new; a supplier the order loses or gains
-- moves its counter and one pair counter per other supplier of the order; then the mask counter
-- takes the mask after.
CREATE VIEW `order_line_changes` AS
SELECT NULL AS order_id, NULL AS old_status, NULL AS new_status, NULL AS old_supplier, NULL AS new_supplier WHERE 0;
--> statement-breakpoint
CREATE TRIGGER `order_line_changes_apply` INSTEAD OF INSERT ON order_line_changes BEGIN
	SELECT RAISE(ABORT, 'A line state without a code in line_status_codes.')
		WHERE NEW.new_status IS NOT NULL AND NOT EXISTS (SELECT 1 FROM line_status_codes WHERE status = NEW.new_status);
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT account_id, test, kind, key, -1 FROM order_line_keys WHERE order_id = NEW.order_id AND kind = 'orders.mask'
			AND NEW.old_status IS NOT NEW.new_status
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
	-- The state it leaves and the one it takes.
	UPDATE order_facets SET n = n - 1 WHERE NEW.old_status IS NOT NEW.new_status
		AND (account_id, test, kind, value, created_at, order_id) =
			(SELECT o.account_id, o.test, 0, c.code, o.created_at, o.id FROM orders o, line_status_codes c WHERE o.id = NEW.order_id AND c.status = NEW.old_status);
	DELETE FROM order_facets WHERE n = 0 AND NEW.old_status IS NOT NEW.new_status
		AND (account_id, test, kind, value, created_at, order_id) =
			(SELECT o.account_id, o.test, 0, c.code, o.created_at, o.id FROM orders o, line_status_codes c WHERE o.id = NEW.order_id AND c.status = NEW.old_status);
	INSERT INTO order_facets (account_id, test, kind, value, created_at, order_id, n)
		SELECT o.account_id, o.test, 0, c.code, o.created_at, o.id, 1 FROM orders o, line_status_codes c
		WHERE o.id = NEW.order_id AND c.status = NEW.new_status AND NEW.old_status IS NOT NEW.new_status
		ON CONFLICT DO UPDATE SET n = n + 1;
	-- The supplier it leaves: when it was the order's last line there, its counter and pairs go.
	UPDATE order_facets SET n = n - 1 WHERE NEW.old_supplier IS NOT NEW.new_supplier AND NEW.old_supplier IS NOT NULL
		AND (account_id, test, kind, value, created_at, order_id) =
			(SELECT o.account_id, o.test, 1, NEW.old_supplier, o.created_at, o.id FROM orders o WHERE o.id = NEW.order_id);
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT o.account_id, o.test, 'orders.supplier', NEW.old_supplier, -1 FROM orders o WHERE o.id = NEW.order_id
			AND NEW.old_supplier IS NOT NEW.new_supplier AND NEW.old_supplier IS NOT NULL
			AND EXISTS (SELECT 1 FROM order_facets f WHERE f.account_id = o.account_id AND f.test = o.test AND f.kind = 1 AND f.value = NEW.old_supplier AND f.created_at = o.created_at AND f.order_id = o.id AND f.n = 0)
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT o.account_id, o.test, 'orders.supplier_pair', min(f.value, NEW.old_supplier) || ',' || max(f.value, NEW.old_supplier), -1
		FROM orders o JOIN order_facets f ON f.account_id = o.account_id AND f.test = o.test AND f.kind = 1
			AND f.value IN (SELECT matched_supplier_id FROM order_lines WHERE order_id = o.id) AND f.created_at = o.created_at AND f.order_id = o.id
		WHERE o.id = NEW.order_id AND NEW.old_supplier IS NOT NEW.new_supplier AND NEW.old_supplier IS NOT NULL
			AND f.value IS NOT NEW.old_supplier
			AND EXISTS (SELECT 1 FROM order_facets g WHERE g.account_id = o.account_id AND g.test = o.test AND g.kind = 1 AND g.value = NEW.old_supplier AND g.created_at = o.created_at AND g.order_id = o.id AND g.n = 0)
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
	DELETE FROM order_facets WHERE n = 0 AND NEW.old_supplier IS NOT NEW.new_supplier AND NEW.old_supplier IS NOT NULL
		AND (account_id, test, kind, value, created_at, order_id) =
			(SELECT o.account_id, o.test, 1, NEW.old_supplier, o.created_at, o.id FROM orders o WHERE o.id = NEW.order_id);
	-- The supplier it joins: when it is new to the order, its counter and pairs (while its facet does
	-- not exist yet), then its facet.
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT o.account_id, o.test, 'orders.supplier', NEW.new_supplier, 1 FROM orders o WHERE o.id = NEW.order_id
			AND NEW.old_supplier IS NOT NEW.new_supplier AND NEW.new_supplier IS NOT NULL
			AND NOT EXISTS (SELECT 1 FROM order_facets f WHERE f.account_id = o.account_id AND f.test = o.test AND f.kind = 1 AND f.value = NEW.new_supplier AND f.created_at = o.created_at AND f.order_id = o.id)
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT o.account_id, o.test, 'orders.supplier_pair', min(f.value, NEW.new_supplier) || ',' || max(f.value, NEW.new_supplier), 1
		FROM orders o JOIN order_facets f ON f.account_id = o.account_id AND f.test = o.test AND f.kind = 1
			AND f.value IN (SELECT matched_supplier_id FROM order_lines WHERE order_id = o.id) AND f.created_at = o.created_at AND f.order_id = o.id
		WHERE o.id = NEW.order_id AND NEW.old_supplier IS NOT NEW.new_supplier AND NEW.new_supplier IS NOT NULL
			AND f.value IS NOT NEW.new_supplier
			AND NOT EXISTS (SELECT 1 FROM order_facets g WHERE g.account_id = o.account_id AND g.test = o.test AND g.kind = 1 AND g.value = NEW.new_supplier AND g.created_at = o.created_at AND g.order_id = o.id)
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
	INSERT INTO order_facets (account_id, test, kind, value, created_at, order_id, n)
		SELECT o.account_id, o.test, 1, NEW.new_supplier, o.created_at, o.id, 1 FROM orders o
		WHERE o.id = NEW.order_id AND NEW.old_supplier IS NOT NEW.new_supplier AND NEW.new_supplier IS NOT NULL
		ON CONFLICT DO UPDATE SET n = n + 1;
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT account_id, test, kind, key, 1 FROM order_line_keys WHERE order_id = NEW.order_id AND kind = 'orders.mask'
			AND NEW.old_status IS NOT NEW.new_status
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `order_lines_counts_stay` BEFORE UPDATE OF order_id ON order_lines WHEN OLD.order_id IS NOT NEW.order_id BEGIN
	SELECT RAISE(ABORT, 'An order line never moves to another order.');
END;
--> statement-breakpoint
CREATE TRIGGER `order_lines_counts_insert` AFTER INSERT ON order_lines BEGIN
	INSERT INTO order_line_changes VALUES (NEW.order_id, NULL, NEW.current_status, NULL, NEW.matched_supplier_id);
END;
--> statement-breakpoint
CREATE TRIGGER `order_lines_counts_update` AFTER UPDATE OF current_status, matched_supplier_id ON order_lines
WHEN OLD.current_status IS NOT NEW.current_status OR OLD.matched_supplier_id IS NOT NEW.matched_supplier_id
BEGIN
	INSERT INTO order_line_changes VALUES (NEW.order_id, OLD.current_status, NEW.current_status, OLD.matched_supplier_id, NEW.matched_supplier_id);
END;
--> statement-breakpoint
CREATE TRIGGER `order_lines_counts_delete` AFTER DELETE ON order_lines BEGIN
	INSERT INTO order_line_changes VALUES (OLD.order_id, OLD.current_status, NULL, OLD.matched_supplier_id, NULL);
END;
--> statement-breakpoint

-- ---- products -------------------------------------------------------------------------------------
CREATE TRIGGER `products_counts_insert` AFTER INSERT ON products BEGIN
	INSERT INTO counters (account_id, test, kind, key, n) VALUES (NEW.account_id, 0, 'products', '', 1), (NEW.account_id, 0, 'products.feed', NEW.product_feed_id, 1)
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `products_counts_update` AFTER UPDATE OF account_id, product_feed_id ON products
WHEN OLD.account_id IS NOT NEW.account_id OR OLD.product_feed_id IS NOT NEW.product_feed_id
BEGIN
	INSERT INTO counters (account_id, test, kind, key, n) VALUES
		(OLD.account_id, 0, 'products', '', -1), (OLD.account_id, 0, 'products.feed', OLD.product_feed_id, -1),
		(NEW.account_id, 0, 'products', '', 1), (NEW.account_id, 0, 'products.feed', NEW.product_feed_id, 1)
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `products_counts_delete` AFTER DELETE ON products BEGIN
	INSERT INTO counters (account_id, test, kind, key, n) VALUES (OLD.account_id, 0, 'products', '', -1), (OLD.account_id, 0, 'products.feed', OLD.product_feed_id, -1)
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
