-- A moving account's return rows refuse writes like its other rows (the freeze triggers of
-- drizzle/0015, in their indexed form of drizzle/0021, as drizzle/0033 for the stock syncs):
-- src/shards/move.ts copies them with the account, and a row written during the copy would be lost.
-- return_logs has no account_id: its account is its return's (as shop_stock_items' is its connection's).
CREATE TRIGGER `supplier_return_settings_moving_insert` BEFORE INSERT ON supplier_return_settings WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `supplier_return_settings_moving_update` BEFORE UPDATE ON supplier_return_settings WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `supplier_return_settings_moving_delete` BEFORE DELETE ON supplier_return_settings WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `returns_moving_insert` BEFORE INSERT ON returns WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `returns_moving_update` BEFORE UPDATE ON returns WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `returns_moving_delete` BEFORE DELETE ON returns WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `return_lines_moving_insert` BEFORE INSERT ON return_lines WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `return_lines_moving_update` BEFORE UPDATE ON return_lines WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `return_lines_moving_delete` BEFORE DELETE ON return_lines WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `return_notices_moving_insert` BEFORE INSERT ON return_notices WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `return_notices_moving_update` BEFORE UPDATE ON return_notices WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `return_notices_moving_delete` BEFORE DELETE ON return_notices WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `return_logs_moving_insert` BEFORE INSERT ON return_logs WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = (SELECT account_id FROM returns WHERE id = NEW.return_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `return_logs_moving_update` BEFORE UPDATE ON return_logs WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = (SELECT account_id FROM returns WHERE id = NEW.return_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `return_logs_moving_delete` BEFORE DELETE ON return_logs WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = (SELECT account_id FROM returns WHERE id = OLD.return_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
