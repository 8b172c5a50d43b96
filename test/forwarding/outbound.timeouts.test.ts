// Every outbound call is time-boxed below the lease of the send it belongs to, so a lease only
// runs out when the Worker holding it died: a hung supplier cannot make the same dispatch be sent
// by two attempts at once.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { sendEmail } from "../../src/forwarding/channels/email";
import type { DispatchDocument } from "../../src/forwarding/document";
import { LEASE_MARGIN_MS, leaseUntil, OutboundTimeoutError, sendSettings, withTimeout } from "../../src/lib/outbound";

const doc = {
  id: "key",
  type: "order.dispatch",
  dispatch_id: 1,
  created_at: "2026-11-01T00:00:00.000000Z",
  test: false,
  supplier: { id: 1, name: "S" },
  order: { reference: "1", external_id: "e", source: "s", created_at: "x", email: null, shipping: {}, shipping_address: {} },
  lines: [],
} as unknown as DispatchDocument;

describe("time boxes", () => {
  it("withTimeout gives up after its time with a TimeoutError, and passes a faster answer through", async () => {
    const started = Date.now();
    await expect(withTimeout(new Promise(() => {}), 200)).rejects.toThrow(OutboundTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(190);
    expect(await withTimeout(Promise.resolve("fast"), 200)).toBe("fast");
  });

  it("an e-mail send that never answers is a retryable 'timed out' attempt, within the time box", async () => {
    // The mail server hangs: the binding's promise never settles.
    const hung = { ...env, SUPPLIER_EMAIL: { send: () => new Promise<never>(() => {}) } } as unknown as typeof env;
    const started = Date.now();
    expect(await sendEmail(hung, "orders@supplier.example", doc, 300)).toEqual({ outcome: "retryable", detail: "e-mail timed out", failure: "timeout", response: "no answer within 300 ms" });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("the lease covers the call's time box plus a margin", () => {
    const { timeoutMs } = sendSettings(env);
    const at = new Date("2026-11-01T00:00:00Z");
    expect(leaseUntil(at, timeoutMs).getTime() - at.getTime()).toBe(timeoutMs + LEASE_MARGIN_MS);
    expect(LEASE_MARGIN_MS).toBeGreaterThanOrEqual(30_000);
  });
});
