// The console's supplier form with an X12 supplier: its X12 settings (set through the API) are
// carried through a save unchanged, and the format stays x12: never silently turned into CSV.
import { describe, expect, it } from "vitest";
import type { FileTransferConfig } from "../../src/db/schema";
import { fileTransferInput, fileTransferValues } from "../../src/suppliers/file-transfer.pages";
import { FileTransferBody } from "../../src/suppliers/file-transfer.schemas";
import { x12ConfigOf } from "../../src/suppliers/x12.config";

const stored: FileTransferConfig = {
  protocol: "sftp",
  host: "sftp.tuinhout.example",
  port: 22,
  username: "orders",
  authentication: "password",
  host_key_fingerprint: "SHA256:" + "A".repeat(43),
  directory: "in",
  filename: "{reference}-{dispatch_id}.{ext}",
  cancellation_filename: "cancellation-{reference}-{cancellation_id}.{ext}",
  format: "x12",
  columns: null,
  delimiter: ",",
  encoding: "utf-8",
  inbound: { directory: "out", format: "x12", columns: null, archive_directory: null },
  x12: x12ConfigOf({ sender_id: "ORDERINTAKE", receiver_id: "TUINHOUT", usage: "T", sends_back: ["997", "855", "856"] }),
};

describe("the supplier form with an X12 supplier", () => {
  it("the stored x12 settings go through the form and back as they were, and the API's schema takes them", () => {
    const input = fileTransferInput(fileTransferValues(stored));
    expect(input).toMatchObject({ format: "x12", x12: stored.x12, inbound: { directory: "out", format: "x12" } });
    const parsed = FileTransferBody.safeParse({ ...input, password: "kept" });
    expect(parsed.success).toBe(true);
  });

  it("format x12 without stored settings (a new supplier, or a tampered field) leaves x12 out, so the API's 422 says it is required", () => {
    const values = { ...fileTransferValues({ ...stored, x12: undefined }), ft_x12: "{not json" };
    const input = fileTransferInput(values);
    expect(input.x12).toBeUndefined();
    const parsed = FileTransferBody.safeParse({ ...input, password: "kept" });
    expect(parsed.success ? [] : parsed.error.issues.map((i) => [i.path.join("."), i.message])).toEqual([["x12", "The :attribute field is required when format is x12."]]);
  });
});
