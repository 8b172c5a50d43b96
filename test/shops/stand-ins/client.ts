// Test-side handle on the stand-in shops (./harness.ts), from inside workerd.
import { inject } from "vitest";
import type { RecordedRequest } from "./harness";

export type StandInShopHandle = { id: string; base_url: string; credentials: Record<string, string> };

/** A fresh shop of the platform, seeded with the platform's own seed shape (see its stand-in file). */
export async function createStandInShop(platform: string, seed: unknown = {}): Promise<StandInShopHandle> {
  const res = await fetch(`${inject("standInShopsUrl")}/__shops`, { method: "POST", body: JSON.stringify({ platform, seed }) });
  if (res.status !== 201) throw new Error(`stand-in shop not created: ${res.status} ${await res.text()}`);
  return res.json();
}

/** What the shop holds now (its platform's state shape) and every request it received, oldest first. */
export async function standInShop<State = unknown>(shop: StandInShopHandle): Promise<{ state: State; received: RecordedRequest[] }> {
  const res = await fetch(`${inject("standInShopsUrl")}/__shops/${shop.id}`);
  return res.json();
}

export type StandInFault = {
  method?: string;
  /** A regular expression over the path after the shop's prefix. */
  path?: string;
  /** A regular expression over the request's body (Shopify: one mutation among the GraphQL calls to one path). */
  sent?: string;
  status?: number;
  body?: unknown;
  headers?: Record<string, string>;
  /** Never answer (the caller's time box fires). */
  hang?: boolean;
  /** Apply the request, then never answer: the write happened, the caller saw a timeout. */
  hangAfterApplying?: boolean;
  /** Hold the request until releaseHeld: then answered as the shop would (unless the caller gave up first). */
  hold?: boolean;
  /** Apply and answer after this many milliseconds (a slow shop). */
  delayMs?: number;
  times?: number;
};

/** The next matching request(s) answer with the fault instead. */
export async function injectFault(shop: StandInShopHandle, fault: StandInFault): Promise<void> {
  const res = await fetch(`${inject("standInShopsUrl")}/__shops/${shop.id}/faults`, { method: "POST", body: JSON.stringify(fault) });
  if (res.status !== 204) throw new Error(`fault not injected: ${res.status}`);
}

/** A request the shop holds (a `hold` fault): waits until one is held. `abandoned`: the caller gave up on it already. */
export async function heldRequest(shop: StandInShopHandle): Promise<{ path: string; abandoned: boolean }> {
  const res = await fetch(`${inject("standInShopsUrl")}/__shops/${shop.id}/held`, { method: "POST" });
  return res.json();
}

/** Answers the held requests as the shop would; says of each whether the caller had given up on it before. */
export async function releaseHeld(shop: StandInShopHandle): Promise<{ held: { path: string; abandoned: boolean }[] }> {
  const res = await fetch(`${inject("standInShopsUrl")}/__shops/${shop.id}/release`, { method: "POST" });
  return res.json();
}
