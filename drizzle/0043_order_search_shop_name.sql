-- Issue 33: `q` finds an order taken in from Shopify by its name there, as the shop's staff say it:
-- `#1001` and `1001` (docs/shops/shopify.md, "Orders in"). The name is kept where the intake puts it,
-- the order's custom.shopify_name (set once, when the order is created; nothing updates `custom`);
-- it and the name without its leading `#` become two more whole-value keys of order_search_keys,
-- normalised as the others (searchKey()), so the search stays one counter and one key's range.
-- Only the view of an order's own keys changes: the triggers of 0037 read it by name. The orders
-- already there that carry a name get their two keys through the same deltas the triggers use.
-- test/helpers/counts.ts recomputes the keys in JavaScript (searchKeysOf).
DROP VIEW IF EXISTS `order_search_own_rows`;
--> statement-breakpoint
CREATE VIEW `order_search_own_rows` AS
SELECT o.id AS order_id, o.account_id, o.test, o.created_at, lower(replace(replace(replace(replace(k.value, ' ', ''), char(9), ''), char(10), ''), char(13), '')) AS key
FROM orders o, json_each(json_array(o.reference, o.external_id, o.first_name, o.last_name, o.first_name || o.last_name,
	o.company_name, o.email, o.postcode, o.city, CASE WHEN json_type(o.custom, '$.shopify_name') = 'text' THEN o.custom ->> '$.shopify_name' END, ltrim(CASE WHEN json_type(o.custom, '$.shopify_name') = 'text' THEN o.custom ->> '$.shopify_name' END, '#'))) k
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
INSERT INTO order_search_deltas
SELECT o.account_id, o.test, o.created_at, o.id, lower(replace(replace(replace(replace(k.value, ' ', ''), char(9), ''), char(10), ''), char(13), '')) AS key, count(*)
FROM orders o, json_each(json_array(CASE WHEN json_type(o.custom, '$.shopify_name') = 'text' THEN o.custom ->> '$.shopify_name' END, ltrim(CASE WHEN json_type(o.custom, '$.shopify_name') = 'text' THEN o.custom ->> '$.shopify_name' END, '#'))) k
WHERE o.custom IS NOT NULL AND k.value IS NOT NULL AND lower(replace(replace(replace(replace(k.value, ' ', ''), char(9), ''), char(10), ''), char(13), '')) != ''
GROUP BY o.id, key;
