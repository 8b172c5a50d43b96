// What the file channel writes, byte for byte, on the real OpenSSH server of the SFTP tests: a
// formula in a cell neutralised in the supplier's CSV, and the windows-1252 encoding (Windows'
// "ANSI": € is 0x80, Š 0x8A, œ 0x9C there, none of them in ISO-8859-1). A character the encoding
// lacks is never altered: XML carries it as a character reference, JSON as a \u escape, and a CSV
// holding one is not sent, the attempt saying which character, line and column.
// Folders upload/fc-20 to fc-24 are this file's (file-channel-folders.global.ts makes them).
import { describe, expect, inject, it } from "vitest";
import { createAccount, createOrder } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { orderSettled, supplierWithRule } from "../helpers/suppliers";
import { onSftpServer } from "../helpers/file-servers";

const server = inject("sftp");
let folders = 19;
const folder = () => `upload/fc-${++folders}`;

const sftpSettings = (directory: string, overrides: Record<string, unknown> = {}) => ({
  protocol: "sftp",
  host: server.host,
  port: server.port,
  username: server.username,
  password: server.password,
  host_key_fingerprint: server.hostKeyFingerprint,
  directory,
  ...overrides,
});

const COLUMNS = [
  { field: "order_reference", header: "Order" },
  { field: "name", header: "Product" },
  { field: "quantity", header: "Qty" },
  { field: "ship_to_name", header: "Ship to" },
];
const files = (directory: string) => onSftpServer(async (s) => (await s.list(directory)).filter((f) => !f.isDirectory).map((f) => f.name).sort());
const read = (path: string) => onSftpServer((s) => s.read(path, 1 << 20));
const dispatchesOf = async (creds: Credentials, reference: string) => (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;
const bytes = (...parts: (string | number[])[]) =>
  Uint8Array.from(parts.flatMap((p) => (typeof p === "string" ? [...p].map((c) => c.charCodeAt(0)) : p)));

const order = (name: string, lastName = "Jansen") => ({
  shipping_address: { first_name: "Jan", last_name: lastName, address1: "Damrak 1", postcode: "1012LG", city: "Amsterdam", country: "NL" },
  products: [{ external_id: "p-1", name, quantity: 1, price: 10 }],
});

async function settledFile(creds: Credentials, directory: string, reference: string, ext: string) {
  await orderSettled(creds, reference, ["completed"]);
  const [dispatch] = await dispatchesOf(creds, reference);
  const name = `${reference}-${dispatch.id}.${ext}`;
  expect(await files(directory)).toEqual([name]);
  return read(`${directory}/${name}`);
}

describe("the file channel's bytes", () => {
  it("a supplier's CSV in windows-1252: € Š œ as their windows-1252 bytes, and the issue's formula cell with its leading '", async () => {
    const creds = await createAccount();
    const dir = folder();
    const { supplier } = await supplierWithRule(creds, { channel: "file", file_transfer: sftpSettings(dir, { encoding: "windows-1252", delimiter: ";", columns: COLUMNS }) });
    expect((await call("GET", `/api/v1/suppliers/${supplier.id}`, { creds })).json.file_transfer.encoding).toBe("windows-1252");
    const { reference } = await createOrder(creds, order("Šoki œuf 5 €", "-2+3+cmd|' /C calc'!A0"));
    expect(await settledFile(creds, dir, reference, "csv")).toEqual(
      bytes(
        "Order;Product;Qty;Ship to\r\n",
        `${reference};`,
        [0x8a],
        "oki ",
        [0x9c],
        "uf 5 ",
        [0x80],
        ";1;Jan -2+3+cmd|' /C calc'!A0\r\n",
      ),
    );
    // The same cell at the start of a column (the ship-to name starts with the first name, so the product carries it here).
    const second = await createOrder(creds, order("-2+3+cmd|' /C calc'!A0"));
    await orderSettled(creds, second.reference, ["completed"]);
    const [dispatch] = await dispatchesOf(creds, second.reference);
    expect(new TextDecoder("windows-1252").decode(await read(`${dir}/${second.reference}-${dispatch.id}.csv`))).toBe(
      `Order;Product;Qty;Ship to\r\n${second.reference};'-2+3+cmd|' /C calc'!A0;1;Jan Jansen\r\n`,
    );
  });

  it("a character windows-1252 lacks in a CSV: nothing written, the send refused in words naming the character, the line and the column", async () => {
    const creds = await createAccount();
    const dir = folder();
    const { supplier } = await supplierWithRule(creds, { channel: "file", file_transfer: sftpSettings(dir, { encoding: "windows-1252", columns: COLUMNS }) });
    const { reference } = await createOrder(creds, order("Mug", "Łukasiewicz"));
    const settled = await orderSettled(creds, reference, ["failed"]);
    const [dispatch] = await dispatchesOf(creds, reference);
    const words =
      `the ship_to_name of line ${settled.order_lines[0].id} holds "Ł" (U+0141), which windows-1252 cannot write; nothing was sent. ` +
      "Set the supplier's file_transfer encoding to utf-8, or correct the order.";
    expect(dispatch).toMatchObject({ status: "failed", attempts: 1 });
    expect(dispatch.attempt_log).toEqual([expect.objectContaining({ channel: "file", response: words })]);
    expect(dispatch.last_error).toBe(`Supplier ${supplier.name} rejected the order: ${words}`);
    expect(await files(dir)).toEqual([]);
  });

  it("XML and JSON in windows-1252: the encoding's own bytes, and a character it lacks as a reference or escape that reads back as itself", async () => {
    const creds = await createAccount();
    const xmlDir = folder();
    const xmlSupplier = await supplierWithRule(creds, { channel: "file", file_transfer: sftpSettings(xmlDir, { encoding: "windows-1252", format: "xml" }) });
    const name = "Šoki œuf € Łódź 😀";
    const xml = await settledFile(creds, xmlDir, (await createOrder(creds, order(name))).reference, "xml");
    const xmlText = new TextDecoder("windows-1252").decode(xml);
    expect(xmlText.startsWith('<?xml version="1.0" encoding="windows-1252"?>\n')).toBe(true);
    // ó is windows-1252's 0xF3; Ł, ź and the emoji are not in it.
    expect(xmlText).toContain("<name>Šoki œuf € &#x141;ód&#x17A; &#x1F600;</name>");
    expect([0x80, 0x8a, 0x9c, 0xf3].every((b) => xml.includes(b))).toBe(true);
    await call("PATCH", `/api/v1/suppliers/${xmlSupplier.supplier.id}`, { creds, body: { active: false } });

    const jsonDir = folder();
    await supplierWithRule(creds, { channel: "file", file_transfer: sftpSettings(jsonDir, { encoding: "windows-1252", format: "json" }) });
    const json = await settledFile(creds, jsonDir, (await createOrder(creds, order(name))).reference, "json");
    const jsonText = new TextDecoder("windows-1252").decode(json);
    expect(jsonText).toContain('"name": "Šoki œuf € \\u0141ód\\u017a \\ud83d\\ude00"');
    expect(JSON.parse(jsonText).lines[0].name).toBe(name);
    expect([0x80, 0x8a, 0x9c, 0xf3].every((b) => json.includes(b))).toBe(true);
  });
});
