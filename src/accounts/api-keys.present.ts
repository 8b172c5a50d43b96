// An account's API keys in their public JSON shape (never the secret: only its first characters,
// except in the answer that issues a key), and a new account as the operator's API answers it.
import type { Account, ApiKey } from "../db/schema";
import { apiKeyState } from "./accounts.service";

/** `currentKeyId`: the key the request itself was made with (the API marks it `current`). */
export function presentApiKey(k: ApiKey, currentKeyId: number) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    state: apiKeyState(k),
    current: k.id === currentKeyId,
    expires_at: k.expiresAt,
    last_used_at: k.lastUsedAt,
    revoked_at: k.revokedAt,
    created_at: k.createdAt,
  };
}

/** A key just issued, with its secret: the one answer that shows it. */
export function presentNewApiKey({ key, secret }: { key: ApiKey; secret: string }) {
  return {
    id: key.id,
    account_id: key.accountId,
    name: key.name,
    api_key: secret,
    prefix: key.prefix,
    expires_at: key.expiresAt,
    created_at: key.createdAt,
  };
}

/** A new account, with the shard it was placed on (the operator's API). */
export function presentNewAccount(account: Account, shard: number) {
  return { id: account.id, name: account.name, created_at: account.createdAt, shard };
}
