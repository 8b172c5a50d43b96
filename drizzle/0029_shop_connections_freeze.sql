-- A moving account's shop connections refuse writes like its other rows (the freeze triggers of
-- drizzle/0015, in their indexed form of drizzle/0021): src/shards/move.ts copies shop_connections
-- with the account, and a connection created or changed during the copy would be lost.
CREATE TRIGGER `shop_connections_moving_insert` BEFORE INSERT ON shop_connections WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `shop_connections_moving_update` BEFORE UPDATE ON shop_connections WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `shop_connections_moving_delete` BEFORE DELETE ON shop_connections WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
