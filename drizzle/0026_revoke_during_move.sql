-- A revoke is the one write a moving account's keys take (src/shards/accounts.ts): an update that
-- only sets revoked_at, once, passes the freeze, so an operator's revoke takes effect at once in
-- every phase of a move. Every other column must stay as it was (a column added to these tables
-- later must be added to this list, or a write of it alongside a revoke would pass the freeze).
DROP TRIGGER `api_keys_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `api_keys_moving_update` BEFORE UPDATE ON api_keys WHEN NOT (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL AND NEW.id IS OLD.id AND NEW.account_id IS OLD.account_id AND NEW.name IS OLD.name AND NEW.key_hash IS OLD.key_hash AND NEW.prefix IS OLD.prefix AND NEW.expires_at IS OLD.expires_at AND NEW.last_used_at IS OLD.last_used_at AND NEW.created_at IS OLD.created_at) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
--> statement-breakpoint
DROP TRIGGER `supplier_keys_moving_update`;
--> statement-breakpoint
CREATE TRIGGER `supplier_keys_moving_update` BEFORE UPDATE ON supplier_keys WHEN NOT (OLD.revoked_at IS NULL AND NEW.revoked_at IS NOT NULL AND NEW.id IS OLD.id AND NEW.account_id IS OLD.account_id AND NEW.supplier_id IS OLD.supplier_id AND NEW.name IS OLD.name AND NEW.key_hash IS OLD.key_hash AND NEW.prefix IS OLD.prefix AND NEW.last_used_at IS OLD.last_used_at AND NEW.created_at IS OLD.created_at) AND EXISTS (SELECT 1 FROM accounts INDEXED BY accounts_moving_idx WHERE moving IN ('frozen', 'leaving') AND id = NEW.account_id) BEGIN SELECT RAISE(ABORT, 'account_moving: the account is moving to another shard'); END;
