// An account's API keys in their public JSON shape (never the secret: only its first characters).
import type { ApiKey } from "../db/schema";
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
