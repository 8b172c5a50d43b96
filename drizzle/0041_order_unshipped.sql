-- Issue 31: the order list's "not yet shipped" filter (shipping=not_shipped), at the list's constant
-- cost like the other facets. A line is not yet shipped while it is not cancelled (skipped) and its
-- shipments hold less than its quantity. order_facets kind 2, value 0: one row per order with such
-- lines (n = how many); counters kind 'orders.unshipped', key '': how many orders have that row.
-- Kept by the triggers below from order_lines, shipments and orders (moves between accounts or test
-- flags, a new created_at, deletes), each reading the state after its own write, so whatever order
-- the writes come in, the row equals what the base tables say (test/helpers/counts.ts recomputes it).
-- The views and triggers of 0011/0013/0017 are untouched: they never read or write kind 2.

-- An order's count of lines not yet shipped, from its lines and their shipments.
CREATE VIEW `order_unshipped_lines` AS
SELECT l.order_id, count(*) AS n FROM order_lines l
WHERE l.current_status <> 'skipped'
	AND l.quantity > (SELECT coalesce(sum(s.quantity), 0) FROM shipments s WHERE s.order_id = l.order_id AND s.order_line_id = l.id)
GROUP BY l.order_id;
--> statement-breakpoint
-- One line of the order becomes not yet shipped (delta 1) or stops being so (delta -1): its facet
-- row moves by one, and the counter when the row appears or goes.
CREATE VIEW `order_unshipped_changes` AS
SELECT NULL AS order_id, NULL AS delta WHERE 0;
--> statement-breakpoint
CREATE TRIGGER `order_unshipped_changes_apply` INSTEAD OF INSERT ON order_unshipped_changes BEGIN
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT o.account_id, o.test, 'orders.unshipped', '', 1 FROM orders o WHERE o.id = NEW.order_id AND NEW.delta = 1
			AND NOT EXISTS (SELECT 1 FROM order_facets f WHERE f.account_id = o.account_id AND f.test = o.test AND f.kind = 2 AND f.value = 0 AND f.created_at = o.created_at AND f.order_id = o.id)
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
	INSERT INTO order_facets (account_id, test, kind, value, created_at, order_id, n)
		SELECT o.account_id, o.test, 2, 0, o.created_at, o.id, 1 FROM orders o WHERE o.id = NEW.order_id AND NEW.delta = 1
		ON CONFLICT DO UPDATE SET n = n + 1;
	UPDATE order_facets SET n = n - 1 WHERE NEW.delta = -1
		AND (account_id, test, kind, value, created_at, order_id) = (SELECT o.account_id, o.test, 2, 0, o.created_at, o.id FROM orders o WHERE o.id = NEW.order_id);
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT o.account_id, o.test, 'orders.unshipped', '', -1 FROM orders o WHERE o.id = NEW.order_id AND NEW.delta = -1
			AND EXISTS (SELECT 1 FROM order_facets f WHERE f.account_id = o.account_id AND f.test = o.test AND f.kind = 2 AND f.value = 0 AND f.created_at = o.created_at AND f.order_id = o.id AND f.n = 0)
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
	DELETE FROM order_facets WHERE NEW.delta = -1 AND n = 0
		AND (account_id, test, kind, value, created_at, order_id) = (SELECT o.account_id, o.test, 2, 0, o.created_at, o.id FROM orders o WHERE o.id = NEW.order_id);
END;
--> statement-breakpoint
-- ---- order_lines: a new line has no shipment yet.
CREATE TRIGGER `order_lines_unshipped_insert` AFTER INSERT ON order_lines
WHEN NEW.current_status <> 'skipped' AND NEW.quantity > (SELECT coalesce(sum(s.quantity), 0) FROM shipments s WHERE s.order_id = NEW.order_id AND s.order_line_id = NEW.id)
BEGIN
	INSERT INTO order_unshipped_changes VALUES (NEW.order_id, 1);
END;
--> statement-breakpoint
CREATE TRIGGER `order_lines_unshipped_update` AFTER UPDATE OF current_status, quantity ON order_lines
WHEN (OLD.current_status IS NOT NEW.current_status OR OLD.quantity IS NOT NEW.quantity)
	AND (OLD.current_status <> 'skipped' AND OLD.quantity > (SELECT coalesce(sum(s.quantity), 0) FROM shipments s WHERE s.order_id = NEW.order_id AND s.order_line_id = NEW.id))
		IS NOT (NEW.current_status <> 'skipped' AND NEW.quantity > (SELECT coalesce(sum(s.quantity), 0) FROM shipments s WHERE s.order_id = NEW.order_id AND s.order_line_id = NEW.id))
BEGIN
	INSERT INTO order_unshipped_changes
		SELECT NEW.order_id, CASE WHEN NEW.current_status <> 'skipped' AND NEW.quantity > (SELECT coalesce(sum(s.quantity), 0) FROM shipments s WHERE s.order_id = NEW.order_id AND s.order_line_id = NEW.id) THEN 1 ELSE -1 END;
END;
--> statement-breakpoint
CREATE TRIGGER `order_lines_unshipped_delete` AFTER DELETE ON order_lines
WHEN OLD.current_status <> 'skipped' AND OLD.quantity > (SELECT coalesce(sum(s.quantity), 0) FROM shipments s WHERE s.order_id = OLD.order_id AND s.order_line_id = OLD.id)
BEGIN
	INSERT INTO order_unshipped_changes VALUES (OLD.order_id, -1);
END;
--> statement-breakpoint
-- ---- shipments: the line's shipped quantity crosses its quantity (before: without this shipment).
CREATE TRIGGER `shipments_unshipped_insert` AFTER INSERT ON shipments
WHEN EXISTS (SELECT 1 FROM order_lines l WHERE l.id = NEW.order_line_id AND l.current_status <> 'skipped'
	AND l.quantity > (SELECT coalesce(sum(s.quantity), 0) FROM shipments s WHERE s.order_id = l.order_id AND s.order_line_id = l.id) - NEW.quantity
	AND l.quantity <= (SELECT coalesce(sum(s.quantity), 0) FROM shipments s WHERE s.order_id = l.order_id AND s.order_line_id = l.id))
BEGIN
	INSERT INTO order_unshipped_changes VALUES (NEW.order_id, -1);
END;
--> statement-breakpoint
CREATE TRIGGER `shipments_unshipped_delete` AFTER DELETE ON shipments
WHEN EXISTS (SELECT 1 FROM order_lines l WHERE l.id = OLD.order_line_id AND l.current_status <> 'skipped'
	AND l.quantity > (SELECT coalesce(sum(s.quantity), 0) FROM shipments s WHERE s.order_id = l.order_id AND s.order_line_id = l.id)
	AND l.quantity <= (SELECT coalesce(sum(s.quantity), 0) FROM shipments s WHERE s.order_id = l.order_id AND s.order_line_id = l.id) + OLD.quantity)
BEGIN
	INSERT INTO order_unshipped_changes VALUES (OLD.order_id, 1);
END;
--> statement-breakpoint
-- A shipment is never moved or resized (src/ records them once); a write that tried would miscount.
CREATE TRIGGER `shipments_unshipped_stay` BEFORE UPDATE OF order_id, order_line_id, quantity ON shipments
WHEN OLD.order_id IS NOT NEW.order_id OR OLD.order_line_id IS NOT NEW.order_line_id OR OLD.quantity IS NOT NEW.quantity
BEGIN
	SELECT RAISE(ABORT, 'A shipment is never moved or resized.');
END;
--> statement-breakpoint
-- ---- orders: the row's key (account, test flag, created_at) moves with the order; a deleted order
-- takes its row and counter along (its lines are gone first, so normally nothing is left).
CREATE TRIGGER `orders_unshipped_update_before` BEFORE UPDATE OF account_id, test, created_at ON orders
WHEN OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.created_at IS NOT NEW.created_at
BEGIN
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT OLD.account_id, OLD.test, 'orders.unshipped', '', -1 FROM order_facets f
		WHERE f.account_id = OLD.account_id AND f.test = OLD.test AND f.kind = 2 AND f.value = 0 AND f.created_at = OLD.created_at AND f.order_id = OLD.id
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
	DELETE FROM order_facets WHERE account_id = OLD.account_id AND test = OLD.test AND kind = 2 AND value = 0 AND created_at = OLD.created_at AND order_id = OLD.id;
END;
--> statement-breakpoint
CREATE TRIGGER `orders_unshipped_update_after` AFTER UPDATE OF account_id, test, created_at ON orders
WHEN OLD.account_id IS NOT NEW.account_id OR OLD.test IS NOT NEW.test OR OLD.created_at IS NOT NEW.created_at
BEGIN
	INSERT INTO order_facets (account_id, test, kind, value, created_at, order_id, n)
		SELECT NEW.account_id, NEW.test, 2, 0, NEW.created_at, NEW.id, u.n FROM order_unshipped_lines u WHERE u.order_id = NEW.id;
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT NEW.account_id, NEW.test, 'orders.unshipped', '', 1 FROM order_unshipped_lines u WHERE u.order_id = NEW.id
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
END;
--> statement-breakpoint
CREATE TRIGGER `orders_unshipped_delete` BEFORE DELETE ON orders BEGIN
	INSERT INTO counters (account_id, test, kind, key, n)
		SELECT OLD.account_id, OLD.test, 'orders.unshipped', '', -1 FROM order_facets f
		WHERE f.account_id = OLD.account_id AND f.test = OLD.test AND f.kind = 2 AND f.value = 0 AND f.created_at = OLD.created_at AND f.order_id = OLD.id
		ON CONFLICT DO UPDATE SET n = n + excluded.n;
	DELETE FROM order_facets WHERE account_id = OLD.account_id AND test = OLD.test AND kind = 2 AND value = 0 AND created_at = OLD.created_at AND order_id = OLD.id;
END;
--> statement-breakpoint
-- The orders already there (this migration runs on a live database).
INSERT INTO order_facets (account_id, test, kind, value, created_at, order_id, n)
SELECT o.account_id, o.test, 2, 0, o.created_at, o.id, u.n FROM orders o JOIN order_unshipped_lines u ON u.order_id = o.id;
--> statement-breakpoint
INSERT INTO counters (account_id, test, kind, key, n)
SELECT account_id, test, 'orders.unshipped', '', count(*) FROM order_facets WHERE kind = 2 AND value = 0 GROUP BY account_id, test
ON CONFLICT DO UPDATE SET n = excluded.n;
