// The console's supplier form with an X12 supplier: every X12 setting a field of its own, saved
// through the same service as the API (the same 422s, beside the field, nothing stored), the stored
// ones shown back and kept through a save of something else; never silently turned into CSV.
import { describe, expect, it } from "vitest";
import type { FileTransferConfig } from "../../src/db/schema";
import { fileTransferInput, fileTransferValues } from "../../src/suppliers/file-transfer.pages";
import { FileTransferBody } from "../../src/suppliers/file-transfer.schemas";
import { x12ConfigOf } from "../../src/suppliers/x12.config";
import { createAccount } from "../helpers/factories";
import { BASE, call } from "../helpers/http";
import { csrfOf, getPage, send, signIn, type Jar } from "../helpers/console-http";
import { x12Settings } from "../helpers/x12";

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
  x12: x12ConfigOf({ sender_id: "ORDERINTAKE", receiver_id: "TUINHOUT", usage: "T", segment_terminator: "\n", sends_back: ["997", "855", "856"] }),
};

/** The form as the browser posts it: every field once, the ticked sets once each. */
async function postSupplier(jar: Jar, path: string, values: Record<string, string | string[]>) {
  const body = new URLSearchParams();
  for (const [k, v] of Object.entries(values)) for (const one of Array.isArray(v) ? v : [v]) body.append(k, one);
  const res = await send(path, { method: "POST", jar, body, headers: { origin: BASE, "content-type": "application/x-www-form-urlencoded" } });
  return { status: res.status, location: res.headers.get("location"), html: await res.text() };
}

const errorOf = (html: string, field: string) => new RegExp(`id="field-${field}-error"[^>]*>([^<]*)<`).exec(html)?.[1];

describe("the supplier form with an X12 supplier", () => {
  it("the stored x12 settings go through the form's fields and back as they were (a line break as terminator too), and the API's schema takes them", () => {
    const values = fileTransferValues(stored);
    expect(values).toMatchObject({ ft_x12_sender_id: "ORDERINTAKE", ft_x12_segment_terminator: "\\n", ft_x12_gs_sender: "", ft_x12_sends_back: ["997", "855", "856"], ft_x12_usage: "T" });
    const parsed = FileTransferBody.safeParse({ ...fileTransferInput(values), password: "kept" });
    expect(parsed.success && x12ConfigOf(parsed.data.x12!)).toEqual(stored.x12);
    // None ticked is none sent back (not the default of all five); a separator typed as a space is refused, not trimmed away.
    const none = FileTransferBody.safeParse({ ...fileTransferInput({ ...values, ft_x12_sends_back: [], ft_x12_element_separator: " " }), password: "kept" });
    expect(none.success ? [] : none.error.issues.map((i) => i.path.join("."))).toEqual(["x12.element_separator"]);
  });

  it("saves every X12 field through the supplier's service; a bad one is the API's 422 beside its field with nothing stored; a good save is kept and shown", async () => {
    const creds = await createAccount();
    const created = await call("POST", "/api/v1/suppliers", { creds, body: { name: "Tuinhout EDI", channel: "file", file_transfer: x12Settings("upload/edi-10") } });
    expect(created.status).toBe(201);
    const { jar } = await signIn({ account_id: String(creds.accountId), api_key: creds.apiKey });
    const path = `/console/suppliers/${created.json.id}`;
    const page = (await getPage(path, jar)).html;
    expect(page).toContain('name="ft_x12_receiver_id" type="text" value="TUINHOUT"');
    const ft = created.json.file_transfer;
    const form = {
      _csrf: csrfOf(page),
      name: "Tuinhout EDI",
      channel: "file",
      active: "true",
      ft_protocol: "sftp",
      ft_host: ft.host,
      ft_port: String(ft.port),
      ft_username: ft.username,
      ft_password: "",
      ft_host_key_fingerprint: ft.host_key_fingerprint,
      ft_directory: ft.directory,
      ft_format: "x12",
      ft_x12_version: "005010VICS",
      ft_x12_sender_qualifier: "01",
      ft_x12_sender_id: "123456789",
      ft_x12_receiver_qualifier: "08",
      ft_x12_receiver_id: "A".repeat(16),
      ft_x12_gs_sender: "OI",
      ft_x12_gs_receiver: "",
      ft_x12_usage: "P",
      ft_x12_element_separator: "|",
      ft_x12_segment_terminator: "\\n",
      ft_x12_component_separator: "|",
      ft_x12_cancellation: "none",
      ft_x12_sends_back: ["855", "856"],
    };
    const refused = await postSupplier(jar, path, form);
    expect(refused.status).toBe(422);
    expect(errorOf(refused.html, "ft_x12_receiver_id")).toBe("The Partner&#39;s EDI ID field must not be greater than 15 characters.");
    expect(errorOf(refused.html, "ft_x12_element_separator")).toBe("The Element separator field must differ from the other separators.");
    expect(errorOf(refused.html, "ft_x12_component_separator")).toBe("The Sub-element separator field must differ from the other separators.");
    const unchanged = (await call("GET", `/api/v1/suppliers/${created.json.id}`, { creds })).json.file_transfer.x12;
    expect(unchanged).toEqual(created.json.file_transfer.x12);

    // At the limit (15 characters) and the rest corrected: saved, every field as sent, the defaults filled in.
    const saved = await postSupplier(jar, path, { ...form, _csrf: csrfOf(refused.html), ft_x12_receiver_id: "B".repeat(15), ft_x12_component_separator: ">" });
    expect([saved.status, saved.location]).toEqual([303, path]);
    expect((await call("GET", `/api/v1/suppliers/${created.json.id}`, { creds })).json.file_transfer.x12).toEqual({
      version: "005010VICS",
      sender_qualifier: "01",
      sender_id: "123456789",
      receiver_qualifier: "08",
      receiver_id: "B".repeat(15),
      gs_sender: "OI",
      gs_receiver: "B".repeat(15),
      usage: "P",
      element_separator: "|",
      segment_terminator: "\n",
      component_separator: ">",
      sends_back: ["855", "856"],
      cancellation: "none",
    });
    // Shown back as saved: the page's fields hold the stored settings.
    const after = (await getPage(path, jar)).html;
    expect(after).toMatch(/<option value="005010VICS" selected/);
    expect(after).toMatch(/name="ft_x12_segment_terminator" type="text" value="\\n"/);
    expect([...after.matchAll(/name="ft_x12_sends_back" value="(\d+)" checked/g)].map((m) => m[1])).toEqual(["855", "856"]);
  });
});
