// The X12 settings of a file supplier (file_transfer.x12): what reads show with the defaults filled
// in, and 422s naming the field with nothing stored; the ids at ISA's 15 characters and one past,
// separators that are letters, digits or repeated.
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";

const FINGERPRINT = "SHA256:" + "A".repeat(43);
const sftp = { protocol: "sftp", host: "sftp.tuinhout.example", username: "orders", password: "hunter2-secret", host_key_fingerprint: FINGERPRINT, format: "x12" };
const x12 = { sender_id: "ORDERINTAKE", receiver_id: "TUINHOUT" };
const invalid = (errors: Record<string, string[]>) => ({ status: 422, json: { message: "Errors", errors } });
const create = (creds: Credentials, file_transfer: unknown) => call("POST", "/api/v1/suppliers", { creds, body: { name: "EDI", channel: "file", file_transfer } });

describe.concurrent("file_transfer.x12 settings", () => {
  it("every setting with its defaults shown; an ID of 15 characters (ISA's maximum) is taken; inbound answers in x12 by default", async () => {
    const creds = await createAccount();
    const res = await create(creds, { ...sftp, x12: { ...x12, sender_id: "A".repeat(15) }, inbound: { directory: "out" } });
    expect(res.status).toBe(201);
    expect(res.json.file_transfer.x12).toEqual({
      version: "004010",
      sender_qualifier: "ZZ",
      sender_id: "A".repeat(15),
      receiver_qualifier: "ZZ",
      receiver_id: "TUINHOUT",
      gs_sender: "A".repeat(15),
      gs_receiver: "TUINHOUT",
      usage: "P",
      element_separator: "*",
      segment_terminator: "~",
      component_separator: ">",
      sends_back: ["997", "855", "856", "810", "846"],
      cancellation: "860",
    });
    expect(res.json.file_transfer).toMatchObject({ format: "x12", inbound: { directory: "out", format: "x12" } });
    expect((await call("GET", `/api/v1/suppliers/${res.json.id}`, { creds })).json.file_transfer.x12.sender_id).toBe("A".repeat(15));
    // Its server does not exist: paused, so no later cron run of the suite polls its inbound folder.
    expect((await call("PATCH", `/api/v1/suppliers/${res.json.id}`, { creds, body: { active: false } })).status).toBe(200);
  });

  it("422s naming the field, nothing stored: an ID one past 15, a separator that is a letter, a digit or repeated, x12 missing or out of place", async () => {
    const creds = await createAccount();
    const refused = async (body: unknown) => {
      const res = await create(creds, body);
      return { status: res.status, json: res.json };
    };
    expect(await refused({ ...sftp, x12: { ...x12, sender_id: "A".repeat(16), receiver_id: "B".repeat(16), gs_sender: "C".repeat(16) } })).toEqual(
      invalid({
        "file_transfer.x12.sender_id": ["The file_transfer.x12.sender_id field must not be greater than 15 characters."],
        "file_transfer.x12.receiver_id": ["The file_transfer.x12.receiver_id field must not be greater than 15 characters."],
        "file_transfer.x12.gs_sender": ["The file_transfer.x12.gs_sender field must not be greater than 15 characters."],
      }),
    );
    expect(await refused({ ...sftp, x12: { ...x12, element_separator: "E", segment_terminator: "7", component_separator: "**" } })).toEqual(
      invalid({
        "file_transfer.x12.element_separator": ["The file_transfer.x12.element_separator field must not be a letter, a digit or a space."],
        "file_transfer.x12.segment_terminator": ["The file_transfer.x12.segment_terminator field must not be a letter, a digit or a space."],
        "file_transfer.x12.component_separator": ["The file_transfer.x12.component_separator field must be exactly one character."],
      }),
    );
    expect(await refused({ ...sftp, x12: { ...x12, element_separator: "|", component_separator: "|", sender_qualifier: "zz1" } })).toEqual(
      invalid({
        "file_transfer.x12.sender_qualifier": ["The file_transfer.x12.sender_qualifier field must not be greater than 2 characters."],
        "file_transfer.x12.element_separator": ["The file_transfer.x12.element_separator field must differ from the other separators."],
        "file_transfer.x12.component_separator": ["The file_transfer.x12.component_separator field must differ from the other separators."],
      }),
    );
    expect(await refused({ ...sftp, x12: { ...x12, receiver_id: "TUIN*HOUT", sends_back: ["855", "855"] } })).toEqual(
      invalid({
        "file_transfer.x12.receiver_id": ['The file_transfer.x12.receiver_id field must not hold "*", a separator of the files.'],
        "file_transfer.x12.sends_back": ["The file_transfer.x12.sends_back field must not name a set twice."],
      }),
    );
    expect(await refused({ ...sftp, x12: { ...x12, sends_back: ["855", "850"], usage: "X", cancellation: "861" } })).toEqual(
      invalid({
        "file_transfer.x12.sends_back.1": ["The selected file_transfer.x12.sends_back.1 is invalid. Allowed values: 810, 846, 855, 856, 997."],
        "file_transfer.x12.usage": ["The selected file_transfer.x12.usage is invalid. Allowed values: P, T."],
        "file_transfer.x12.cancellation": ["The selected file_transfer.x12.cancellation is invalid. Allowed values: 860, none."],
      }),
    );
    expect(await refused(sftp)).toEqual(invalid({ "file_transfer.x12": ["The file_transfer.x12 field is required when format is x12."] }));
    expect(await refused({ ...sftp, format: "csv", x12, inbound: { directory: "out", format: "x12" } })).toEqual(
      invalid({
        "file_transfer.x12": ["The file_transfer.x12 field is only for format x12."],
        "file_transfer.inbound.format": ["The file_transfer.inbound.format field may be x12 only when format is x12."],
      }),
    );
    expect((await call("GET", "/api/v1/suppliers", { creds })).json.data).toEqual([]);
  });
});
