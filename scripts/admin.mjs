#!/usr/bin/env node
// `npm run admin -- <command>`: a thin CLI over the admin API.
//   accounts:list [--page N]
//   accounts:create <name>
//   keys:list <account-id> [--page N]
//   keys:create <account-id> [--name N] [--expires-at ISO]
//   keys:revoke <key-id>
//   supplier-keys:revoke <supplier-key-id>
//   accounts:move <account-id> <shard>   (calls until the move is done; run it again after a crash)
//   accounts:delete <account-id> [--force]  (calls until the account is deleted; run it again after a crash)
//   reseal                               (after a SECRETS_KEY rotation: every shop connection's credentials sealed under the new key)
// Talks to ADMIN_URL (default http://localhost:8787) with ADMIN_TOKEN (default: from .dev.vars).
import { existsSync, readFileSync } from "node:fs";

const [command, ...rest] = process.argv.slice(2);
const option = (name) => {
  const i = rest.indexOf(`--${name}`);
  return i >= 0 ? rest[i + 1] : undefined;
};
const base = (process.env.ADMIN_URL ?? "http://localhost:8787").replace(/\/$/, "");
const token =
  process.env.ADMIN_TOKEN ??
  (existsSync(".dev.vars") ? /^ADMIN_TOKEN=(.*)$/m.exec(readFileSync(".dev.vars", "utf8"))?.[1]?.trim() : undefined);
if (!token) {
  console.error("Set ADMIN_TOKEN (or run from the project folder after `npm start` created .dev.vars).");
  process.exit(2);
}

async function call(method, path, body) {
  const res = await fetch(`${base}/admin/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  console.log(res.status, text);
  process.exit(res.ok ? 0 : 1);
}

switch (command) {
  case "accounts:list":
    await call("GET", `/accounts?per_page=100&page=${option("page") ?? 1}`);
    break;
  case "accounts:create":
    await call("POST", "/accounts", { name: rest[0] });
    break;
  case "keys:list":
    await call("GET", `/accounts/${rest[0]}/api-keys?per_page=100&page=${option("page") ?? 1}`);
    break;
  case "keys:create":
    await call("POST", `/accounts/${rest[0]}/api-keys`, { name: option("name"), expires_at: option("expires-at") });
    break;
  case "keys:revoke":
    await call("DELETE", `/api-keys/${rest[0]}`);
    break;
  case "supplier-keys:revoke":
    await call("DELETE", `/supplier-keys/${rest[0]}`);
    break;
  case "accounts:move": {
    // Each call does a bounded part of the move (src/shards/move.ts) and says where it stands.
    for (;;) {
      const res = await fetch(`${base}/admin/v1/accounts/${rest[0]}/move`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ shard: Number(rest[1]) }),
      });
      const text = await res.text();
      console.log(res.status, text);
      if (!res.ok) process.exit(1);
      if (JSON.parse(text).done) process.exit(0);
    }
  }
  case "accounts:delete": {
    // Each call does a bounded part of the deletion (src/shards/delete.ts) and says where it stands;
    // without --force an account with open work is refused (409, saying what is open).
    const force = rest.includes("--force") ? "?force=true" : "";
    for (;;) {
      const res = await fetch(`${base}/admin/v1/accounts/${rest[0]}${force}`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } });
      const text = await res.text();
      console.log(res.status, text);
      if (!res.ok) process.exit(1);
      if (JSON.parse(text).done) process.exit(0);
    }
  }
  case "reseal": {
    // Each call re-seals a bounded part (src/admin/secrets.routes.ts) and says where to go on.
    let next = {};
    for (;;) {
      const res = await fetch(`${base}/admin/v1/secrets/reseal`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify(next),
      });
      const text = await res.text();
      console.log(res.status, text);
      if (!res.ok) process.exit(1);
      const answer = JSON.parse(text);
      if (answer.done) process.exit(answer.unopenable.length === 0 ? 0 : 1);
      next = answer.next;
    }
  }
  default:
    console.error("Usage: npm run admin -- accounts:list [--page N] | accounts:create <name> | keys:list <account-id> [--page N] | keys:create <account-id> [--name N] [--expires-at ISO] | keys:revoke <key-id> | supplier-keys:revoke <supplier-key-id> | accounts:move <account-id> <shard> | reseal");
    process.exit(2);
}
