// The suppliers' channels are adapters behind one interface (src/forwarding/channels/): one per
// channel a supplier can choose, each saying how a dispatch on it starts and sending a document.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createDb } from "../../../src/db";
import { sendLedger } from "../../../src/forwarding/x12/numbers";
import { CHANNELS as SUPPLIER_CHANNELS, type Supplier } from "../../../src/db/schema";
import { CHANNELS, type Outgoing } from "../../../src/forwarding/channels";
import type { DispatchDocument } from "../../../src/forwarding/document";

// Only the document's idempotency key matters to these channels' answers.
const outgoing: Outgoing = { kind: "order", document: { id: "key-1" } as DispatchDocument, mail: { subject: "Order 1", text: "1 x mug", headers: {} } };
const nowhere = { id: 1, name: "S", webhookUrl: null, webhookSecret: "s", webhookSecretPrevious: null, email: null } as unknown as Supplier;

describe("the suppliers' channels", () => {
  it("has one adapter for each channel a supplier can choose, and each says how a dispatch on it starts", () => {
    expect(Object.fromEntries(SUPPLIER_CHANNELS.map((name) => [name, CHANNELS[name]?.starts]))).toEqual({
      webhook: "sending",
      pull: "awaiting_pickup",
      email: "sending",
      file: "sending",
      manual: "manual",
    });
  });

  it("a push channel without an address refuses the document and sends nothing", async () => {
    const sent: unknown[] = [];
    const recording = { ...env, SUPPLIER_EMAIL: { send: async (m: unknown) => void sent.push(m) } } as unknown as typeof env;
    expect(await CHANNELS.webhook.send(outgoing, nowhere, { env: recording, timeoutMs: 1_000, ledger: sendLedger(createDb(env.DB), { id: 0, accountId: 0 }) })).toEqual({ outcome: "rejected", detail: "the supplier has no webhook URL" });
    expect(await CHANNELS.email.send(outgoing, nowhere, { env: recording, timeoutMs: 1_000, ledger: sendLedger(createDb(env.DB), { id: 0, accountId: 0 }) })).toEqual({ outcome: "rejected", detail: "the supplier has no e-mail address" });
    expect(sent).toEqual([]);
    expect([CHANNELS.webhook.address(nowhere), CHANNELS.email.address(nowhere)]).toEqual([null, null]);
  });

  it("the e-mail channel sends the document's mail to the supplier's address", async () => {
    const sent: { to: string }[] = [];
    const recording = { ...env, SUPPLIER_EMAIL: { send: async (m: { to: string }) => void sent.push({ to: m.to }) } } as unknown as typeof env;
    const supplier = { ...nowhere, email: "orders@supplier.example" } as Supplier;
    expect(await CHANNELS.email.send(outgoing, supplier, { env: recording, timeoutMs: 1_000, ledger: sendLedger(createDb(env.DB), { id: 0, accountId: 0 }) })).toEqual({ outcome: "delivered", detail: "e-mailed to orders@supplier.example" });
    expect(sent).toEqual([{ to: "orders@supplier.example" }]);
  });

  it("pull and manual send nothing: what they are given is shown to the supplier where it looks", async () => {
    expect(await CHANNELS.pull.send(outgoing, nowhere, { env, timeoutMs: 1_000, ledger: sendLedger(createDb(env.DB), { id: 0, accountId: 0 }) })).toEqual({ outcome: "delivered", detail: "shown to the supplier (pull)" });
    expect(await CHANNELS.manual.send(outgoing, nowhere, { env, timeoutMs: 1_000, ledger: sendLedger(createDb(env.DB), { id: 0, accountId: 0 }) })).toEqual({ outcome: "delivered", detail: "shown to the supplier (manual)" });
  });
});
