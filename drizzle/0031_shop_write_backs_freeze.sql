-- A moving account's shop write-backs and their attempts refuse writes like its other rows (the
-- freeze triggers of drizzle/0015, in their indexed form of drizzle/0021): src/shards/move.ts copies
-- them with the account, and one created or changed during the copy would be lost.
CREATE TRIGGER `shop_write_backs_moving_insert` BEFORE INSERT ON shop_write_backs WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `shop_write_backs_moving_update` BEFORE UPDATE ON shop_write_backs WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `shop_write_backs_moving_delete` BEFORE DELETE ON shop_write_backs WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = OLD.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `shop_write_back_attempts_moving_insert` BEFORE INSERT ON shop_write_back_attempts WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = (SELECT account_id FROM shop_write_backs WHERE id = NEW.write_back_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `shop_write_back_attempts_moving_update` BEFORE UPDATE ON shop_write_back_attempts WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = (SELECT account_id FROM shop_write_backs WHERE id = NEW.write_back_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
CREATE TRIGGER `shop_write_back_attempts_moving_delete` BEFORE DELETE ON shop_write_back_attempts WHEN EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IS NOT NULL) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen') AND id = (SELECT account_id FROM shop_write_backs WHERE id = OLD.write_back_id)) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
