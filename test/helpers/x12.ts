// X12 suppliers for the tests against the real sshd: the settings, and files as a supplier writes
// them, enveloped by hand here (not with our writer), with their counts.
import { inject } from "vitest";

export const X12 = { sender_id: "ORDERINTAKE", receiver_id: "TUINHOUT", receiver_qualifier: "01", usage: "T" };

export function x12Settings(directory: string, overrides: Record<string, unknown> = {}) {
  const server = inject("sftp");
  return {
    protocol: "sftp",
    host: server.host,
    port: server.port,
    username: server.username,
    password: server.password,
    host_key_fingerprint: server.hostKeyFingerprint,
    directory,
    format: "x12",
    x12: X12,
    ...overrides,
  };
}

const FUNCTIONAL_IDS: Record<string, string> = { "997": "FA", "855": "PR", "856": "SH", "810": "IN", "846": "IB", "850": "PO" };

/** One interchange from the supplier (TUINHOUT) to us, one group, one set of these segments (without ST/SE). */
export function supplierFile(setId: string, control: number, segments: string[]): string {
  const isa13 = String(control).padStart(9, "0");
  return [
    `ISA*00*          *00*          *01*TUINHOUT       *ZZ*ORDERINTAKE    *261129*1200*U*00401*${isa13}*0*T*>`,
    `GS*${FUNCTIONAL_IDS[setId]}*TUINHOUT*ORDERINTAKE*20261129*1200*${control}*X*004010`,
    `ST*${setId}*0001`,
    ...segments,
    `SE*${segments.length + 2}*0001`,
    `GE*1*${control}`,
    `IEA*1*${isa13}`,
  ]
    .map((s) => `${s}~\n`)
    .join("");
}
