// Test-side handle on the fake remote server (see fake-remote.global.ts).
import { inject } from "vitest";
import { unique } from "./factories";

export type RecordedRequest = { method: string; path: string; headers: Record<string, string>; body: string; at: number };

/** A fresh URL on the fake remote with the given behaviour ("ok", "status-500", "flaky-2", "slow"). */
export function remoteUrl(scenario: string): string {
  return `${inject("fakeRemoteUrl")}/${scenario}/${unique("r")}`;
}

/** Every request the fake remote received at this URL, oldest first. */
export async function received(url: string): Promise<RecordedRequest[]> {
  const path = new URL(url).pathname;
  const res = await fetch(`${inject("fakeRemoteUrl")}/__log${path}`);
  return res.json();
}
