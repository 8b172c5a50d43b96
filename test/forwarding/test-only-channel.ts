// A supplier channel that exists only in the tests, in this one file: proof that a channel is one
// adapter (docs/adapters.md). It drops each document, as JSON, at the supplier's drop box URL (the
// supplier's webhook_url field) with a header of its own. test/app/adapters.extension.test.ts
// registers it and shows that the API, the console and forwarding take it with nothing else changed.
import { z } from "zod";
import type { Channel as ChannelName } from "../../src/db/schema";
import type { Channel } from "../../src/forwarding/channels";
import { described } from "../../src/lib/described-fields";

export const TEST_DROP = "test_drop" as ChannelName;

export const testDropChannel: Channel = {
  name: TEST_DROP,
  label: "Test drop box",
  summary: "Each order is dropped, as JSON, in the supplier's drop box (a test-only channel).",
  settings: z.object({
    webhook_url: described(
      z.string().min(1).refine((v) => new URL(v).pathname.startsWith("/ok/"), "The :attribute field must be a drop box address (its path starts with /ok/)."),
      { label: "Drop box URL", hint: "Where the test channel drops each order", input: "url" },
    ),
  }),
  sentAs: "into the drop box",
  addressName: "drop box",
  signs: false,
  delivered: (supplierName) => `Dropped in supplier ${supplierName}'s drop box`,
  destination: (supplier) => supplier.webhookUrl,
  starts: "sending",
  explainFailure: (_record, supplierName) => `Supplier ${supplierName}'s drop box did not take the order.`,
  address: (supplier) => supplier.webhookUrl,
  send: async (outgoing, supplier, { timeoutMs }) => {
    if (!supplier.webhookUrl) return { outcome: "rejected", detail: "the supplier has no drop box" };
    const res = await fetch(supplier.webhookUrl, {
      method: "POST",
      headers: { "content-type": "application/json", "x-test-drop": outgoing.kind },
      body: JSON.stringify(outgoing.document),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await res.body?.cancel();
    return res.ok ? { outcome: "delivered", detail: `dropped (HTTP ${res.status})`, http: res.status } : { outcome: "retryable", detail: `HTTP ${res.status}`, http: res.status };
  },
};
