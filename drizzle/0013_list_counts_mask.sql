-- Issue 11, after measuring what a create writes (bench/RESULTS.md, "Rows written per create"): the
-- state-mask counters move only when an order's mask does, and an order without lines has none.
-- Before, every line written wrote its order's mask counter twice (-1, +1), even when the mask stayed
-- the same (the second and third line of a new order, lines moving as a set), and a new order wrote
-- the empty mask only for its first line to take it back. Same counters otherwise (the invariant
-- test recomputes them); the views and the two triggers that use them are replaced.
DROP TRIGGER `order_line_changes_apply`;
--> statement-breakpoint
DROP TRIGGER `order_changes_apply`;
--> statement-breakpoint
DROP VIEW `order_line_keys`;
--> statement-breakpoint
-- What an order's facets contribute: its state mask, each supplier, each pair of its suppliers.
-- (Its suppliers are found through its lines, the facets' key holding no order-first index.)
-- An order without lines has no mask counter: no `statuses` filter can match it, and a new order
-- does not write one only for its first line to take it back.
CREATE VIEW `order_line_keys` AS
SELECT * FROM (SELECT o.id AS order_id, o.account_id, o.test, 'orders.mask' AS kind,
	(SELECT sum(1 << f.value) FROM order_facets f
		WHERE f.account_id = o.account_id AND f.test = o.test AND f.kind = 0 AND f.value IN (SELECT code FROM line_status_codes)
			AND f.created_at = o.created_at AND f.order_id = o.id) AS key
FROM orders o) WHERE key IS NOT NULL
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
-- An order's state facet by state name, read through the facets' key (the order's own row gives it).
CREATE VIEW `order_status_facets` AS
SELECT o.id AS order_id, c.status, f.n
FROM orders o JOIN line_status_codes c JOIN order_facets f ON f.account_id = o.account_id AND f.test = o.test AND f.kind = 0
	AND f.value = c.code AND f.created_at = o.created_at AND f.order_id = o.id;
--> statement-breakpoint
-- As in 0011 (it reads the view above).
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
-- As in 0011, with the mask counters moved only when the mask does: the line was the last of its
-- order in its old state, or is the first in its new one.
CREATE TRIGGER `order_line_changes_apply` INSTEAD OF INSERT ON order_line_changes BEGIN
	SELECT RAISE(ABORT, 'A line state without a code in line_status_codes.')
		WHERE NEW.new_status IS NOT NULL AND NOT EXISTS (SELECT 1 FROM line_status_codes WHERE status = NEW.new_status);
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT account_id, test, kind, key, -1 FROM order_line_keys WHERE order_id = NEW.order_id AND kind = 'orders.mask'
			AND NEW.old_status IS NOT NEW.new_status
			AND ((SELECT n FROM order_status_facets WHERE order_id = NEW.order_id AND status = NEW.old_status) = 1
				OR (NEW.new_status IS NOT NULL AND NOT EXISTS (SELECT 1 FROM order_status_facets WHERE order_id = NEW.order_id AND status = NEW.new_status)))
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
			AND ((NEW.old_status IS NOT NULL AND NOT EXISTS (SELECT 1 FROM order_status_facets WHERE order_id = NEW.order_id AND status = NEW.old_status))
				OR (SELECT n FROM order_status_facets WHERE order_id = NEW.order_id AND status = NEW.new_status) = 1)
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
-- The empty mask is no longer counted (no statuses filter reads it).
DELETE FROM `counters` WHERE `kind` = 'orders.mask' AND `key` = '0';
