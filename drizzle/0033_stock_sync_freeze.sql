-- A moving account's stock-sync rows refuse writes like its other rows (the freeze triggers of
-- drizzle/0015, in their indexed form of drizzle/0021, as drizzle/0029 for shop_connections):
-- src/shards/move.ts copies them with the account, and a row written during the copy would be lost.
CREATE TRIGGER `catalogue_sequences_moving_insert` BEFORE INSERT ON catalogue_sequences WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `catalogue_sequences_moving_update` BEFORE UPDATE ON catalogue_sequences WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `catalogue_sequences_moving_delete` BEFORE DELETE ON catalogue_sequences WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `shop_stock_cursors_moving_insert` BEFORE INSERT ON shop_stock_cursors WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `shop_stock_cursors_moving_update` BEFORE UPDATE ON shop_stock_cursors WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `shop_stock_cursors_moving_delete` BEFORE DELETE ON shop_stock_cursors WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `stock_syncs_moving_insert` BEFORE INSERT ON stock_syncs WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `stock_syncs_moving_update` BEFORE UPDATE ON stock_syncs WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `stock_syncs_moving_delete` BEFORE DELETE ON stock_syncs WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `shop_stock_items_moving_insert` BEFORE INSERT ON shop_stock_items WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = (SELECT account_id FROM shop_connections WHERE id = NEW.connection_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `shop_stock_items_moving_update` BEFORE UPDATE ON shop_stock_items WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = (SELECT account_id FROM shop_connections WHERE id = NEW.connection_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `shop_stock_items_moving_delete` BEFORE DELETE ON shop_stock_items WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = (SELECT account_id FROM shop_connections WHERE id = OLD.connection_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `stock_sync_items_moving_insert` BEFORE INSERT ON stock_sync_items WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = (SELECT account_id FROM stock_syncs WHERE id = NEW.sync_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `stock_sync_items_moving_update` BEFORE UPDATE ON stock_sync_items WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = (SELECT account_id FROM stock_syncs WHERE id = NEW.sync_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `stock_sync_items_moving_delete` BEFORE DELETE ON stock_sync_items WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = (SELECT account_id FROM stock_syncs WHERE id = OLD.sync_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
