// The file channel against the real OpenSSH server of the SFTP tests (sftp-server.global.ts), each
// test in a folder of its own (file-channel-folders.global.ts): an order as a CSV file (its exact
// bytes), a retry that writes the same file again and no second one, failures in words on the
// attempt log and in the settings' test, and answer files read back by the cron: good and bad rows,
// once under overlapping runs, 10,000 rows, and a tracking CSV that completes lines with their shipments.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import worker from "../../src/index";
import type { Bindings } from "../../src/env";
import { createDb } from "../../src/db";
import { carrierPipeline } from "../../src/lib/queue";
import { attemptDispatch } from "../../src/routing/failed-sends";
import { ftpConnector } from "../../src/lib/file-transfer/ftp";
import { createAccount, createOrder, exec, rows } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";
import { orderSettled, supplierWithRule } from "../helpers/suppliers";
import { waitFor } from "../helpers/wait";
import { onSftpServer } from "../helpers/file-servers";
import { INBOUND_FILES_PER_RUN, INBOUND_LEASE_MS } from "../../src/forwarding/inbound-files.service";
import { isoMicro } from "../../src/lib/time";

const server = inject("sftp");
const refusedPort = Number(new URL(inject("closedPortUrl")).port);
let folders = 0;
/** A folder of this test's own on the server (upload/fc-N, with in/ and in/done/ in it). */
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

const onServer = onSftpServer;
const text = (b: Uint8Array) => new TextDecoder().decode(b);
const names = (directory: string) => onServer(async (s) => (await s.list(directory)).filter((f) => !f.isDirectory).map((f) => f.name).sort());

const dispatchesOf = async (creds: Credentials, reference: string) => (await call("GET", `/api/v1/orders/${reference}/dispatches`, { creds })).json.data;
const ISO = expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/);

/** Runs the scheduled handler as the platform would. */
async function cron(at = Date.now()) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: at }), env, ctx);
  await waitOnExecutionContext(ctx);
}

const inboundFiles = async (creds: Credentials, supplierId: number, query = "") =>
  (await call("GET", `/api/v1/suppliers/${supplierId}/inbound-files${query}`, { creds })).json;

const TWO_LINES = {
  products: [
    { external_id: "mug-1", reference: "MUG-BLUE", name: "Blue mug", quantity: 2, price: 12.5, purchase_price: 6.25 },
    { external_id: "pot-1", reference: "POT; RED", name: 'Red "pot"', quantity: 1, price: 20, purchase_price: 9 },
  ],
};

describe("the file channel over SFTP", () => {
  it("an order arrives as a CSV file in the supplier's folder: its name, its exact bytes, one attempt accepted, no temporary file left", async () => {
    const creds = await createAccount();
    const dir = folder();
    const columns = [
      { field: "order_reference", header: "Order" },
      { field: "line_id", header: "Line" },
      { field: "sku", header: "SKU" },
      { field: "name", header: "Product" },
      { field: "quantity", header: "Qty" },
      { field: "ship_to_name", header: "Ship to" },
      { field: "ship_to_city", header: "City" },
    ];
    const { supplier } = await supplierWithRule(creds, { channel: "file", file_transfer: sftpSettings(dir, { delimiter: ";", columns }) });
    const { reference } = await createOrder(creds, TWO_LINES);
    const order = await orderSettled(creds, reference, ["completed"]);
    const [dispatch] = await dispatchesOf(creds, reference);
    const name = `${reference}-${dispatch.id}.csv`;
    const [a, b] = order.order_lines.map((l: { id: number }) => l.id);
    expect(await names(dir)).toEqual([name]);
    const bytes = await onServer((s) => s.read(`${dir}/${name}`, 1 << 20));
    expect(text(bytes)).toBe(
      "Order;Line;SKU;Product;Qty;Ship to;City\r\n" +
        `${reference};${a};MUG-BLUE;Blue mug;2;Jan Jansen;Amsterdam\r\n` +
        `${reference};${b};"POT; RED";"Red ""pot""";1;Jan Jansen;Amsterdam\r\n`,
    );
    expect(dispatch).toMatchObject({ status: "sent", channel: "file", attempts: 1, last_error: null });
    expect(dispatch.attempt_log).toEqual([
      {
        attempt: 1,
        at: ISO,
        channel: "file",
        to: `sftp://${server.host}:${server.port}/${dir}/${name}`,
        lines: 2,
        outcome: "accepted",
        http_status: null,
        response: null,
        duration_ms: expect.any(Number),
      },
    ]);
    expect(order.order_lines[0].logs.at(-1).message).toBe("Successfully sent to supplier");
    await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { active: false } });
  });

  it("a retry after an attempt that never reported back looks first: the file there whole is not written again, still one file", async () => {
    const creds = await createAccount();
    const dir = folder();
    await supplierWithRule(creds, { channel: "file", file_transfer: sftpSettings(dir, { format: "json" }) });
    const { reference } = await createOrder(creds, TWO_LINES);
    await orderSettled(creds, reference, ["completed"]);
    const [dispatch] = await dispatchesOf(creds, reference);
    const name = `${reference}-${dispatch.id}.json`;
    const first = text(await onServer((s) => s.read(`${dir}/${name}`, 1 << 20)));
    expect(JSON.parse(first)).toMatchObject({ type: "order.dispatch", dispatch_id: dispatch.id, order: { reference } });
    // The Worker wrote the file and died before it recorded so: the lease ran out, the lines are still ruled.
    await exec("UPDATE dispatches SET status = 'sending', lease_until = '2000-01-01T00:00:00.000000Z' WHERE id = ?", dispatch.id);
    await exec("UPDATE order_lines SET current_status = 'ruled' WHERE dispatch_id = ?", dispatch.id);
    expect(await attemptDispatch(createDb(env.DB), env as Bindings, carrierPipeline(env as Bindings), dispatch.id)).toEqual({ done: true });
    expect(await names(dir)).toEqual([name]);
    expect(text(await onServer((s) => s.read(`${dir}/${name}`, 1 << 20)))).toBe(first);
    const [again] = await dispatchesOf(creds, reference);
    const to = `sftp://${server.host}:${server.port}/${dir}/${name}`;
    // Looked for first (issue 30: a supplier that had taken it would find it written again): found whole, not written again.
    expect(again.attempt_log.map((a: { attempt: number; outcome: string; to: string; response: string | null }) => [a.attempt, a.outcome, a.to, a.response])).toEqual([
      [1, "accepted", to, null],
      [2, "accepted", to, `already on the server, as an earlier attempt wrote it: not written again (${to})`],
    ]);
  });

  it("a cancellation request goes as a file of its own, under its own name template", async () => {
    const creds = await createAccount();
    const dir = folder();
    const { supplier } = await supplierWithRule(creds, { channel: "file", file_transfer: sftpSettings(dir, { cancellation_filename: "cancel-{external_id}-{cancellation_id}.{ext}" }) });
    const { reference, payload } = await createOrder(creds, TWO_LINES);
    const order = await orderSettled(creds, reference, ["completed"]);
    const [a] = order.order_lines.map((l: { id: number }) => l.id);
    const res = await call("POST", `/api/v1/orders/${reference}/cancel`, { creds, body: { lines: [{ line_id: a, quantity: 1 }], reason: "wrong colour" } });
    expect(res.status).toBe(200);
    const [request] = await waitFor(async () => {
      const list = (await call("GET", `/api/v1/orders/${reference}/cancellations`, { creds })).json.data;
      return list[0]?.status === "requested" ? list : null;
    });
    expect(request).toMatchObject({ channel: "file", status: "requested", attempts: 1, last_error: null });
    const [dispatch] = await dispatchesOf(creds, reference);
    const name = `cancel-${payload.external_id}-${request.id}.csv`;
    expect(await names(dir)).toEqual([`${reference}-${dispatch.id}.csv`, name].sort());
    expect(text(await onServer((s) => s.read(`${dir}/${name}`, 1 << 20)))).toBe(
      "cancellation_id,purpose,order_reference,order_external_id,line_id,line_external_id,sku,ean13,name,quantity,line_quantity,reason\r\n" +
        `${request.id},cancel,${reference},${payload.external_id},${a},mug-1,MUG-BLUE,,Blue mug,1,2,wrong colour\r\n`,
    );
    await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { active: false } });
  });

  it("a wrong password and a host key that is not the pinned one: refused at once, said in words on the attempt log", async () => {
    const creds = await createAccount();
    const cases = [
      { settings: { password: "not-the-password" }, words: /^auth: / },
      { settings: { host_key_fingerprint: "SHA256:" + "B".repeat(43) }, words: /^host_key_mismatch: / },
    ];
    for (const { settings, words } of cases) {
      const { supplier } = await supplierWithRule(creds, { channel: "file", file_transfer: sftpSettings(folder(), settings) });
      const { reference } = await createOrder(creds, { products: [{ external_id: "mug", name: "Mug", quantity: 1, price: 10, supplier: supplier.name }] });
      await orderSettled(creds, reference, ["failed"]);
      const [dispatch] = await dispatchesOf(creds, reference);
      expect(dispatch).toMatchObject({ status: "failed", attempts: 1 });
      expect(dispatch.attempt_log).toEqual([expect.objectContaining({ channel: "file", outcome: "file_error", response: expect.stringMatching(words) })]);
      expect(dispatch.last_error).toMatch(new RegExp(`^Supplier ${supplier.name} rejected the order: ${words.source.slice(1)}`));
      await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { active: false } });
    }
  });

  it("a refusing server: every attempt up to the last, each said", async () => {
    const creds = await createAccount();
    await supplierWithRule(creds, { channel: "file", file_transfer: sftpSettings(folder(), { port: refusedPort }) });
    const { reference } = await createOrder(creds, TWO_LINES);
    await orderSettled(creds, reference, ["failed"]);
    const [dispatch] = await dispatchesOf(creds, reference);
    expect(dispatch.attempt_log.map((a: { outcome: string; response: string }) => [a.outcome, a.response.split(":")[0]])).toEqual(Array(3).fill(["file_error", "refused"]));
  });

  it("the settings' test: every check passes on a good server, and says what failed on bad ones; a hanging server is cut off by the time box", async () => {
    const creds = await createAccount();
    const dir = folder();
    const make = async (settings: Record<string, unknown>) =>
      (await call("POST", "/api/v1/suppliers", { creds, body: { name: `T ${folders}-${Math.random()}`, channel: "file", file_transfer: settings } })).json.id as number;
    const test = async (id: number) => {
      const res = await call("POST", `/api/v1/suppliers/${id}/file-transfer/test`, { creds });
      expect(res.status).toBe(200);
      return res.json;
    };
    const good = await test(await make(sftpSettings(dir, { inbound: { directory: `${dir}/in` } })));
    expect(good).toEqual({
      ok: true,
      checks: [
        { name: "connect", ok: true, message: `connected to sftp://${server.host}:${server.port} as ${server.username}` },
        { name: "list", ok: true, message: expect.stringMatching(new RegExp(`^(1 entry|(?!1 )\\d+ entries) in ${dir}$`)) },
        { name: "write", ok: true, message: expect.stringMatching(new RegExp(`^wrote ${dir}/order-intake-probe-[0-9a-f-]{36}\\.txt$`)) },
        { name: "delete", ok: true, message: expect.stringMatching(new RegExp(`^deleted ${dir}/order-intake-probe-[0-9a-f-]{36}\\.txt$`)) },
        { name: "list_inbound", ok: true, message: expect.stringMatching(new RegExp(`^(1 entry|(?!1 )\\d+ entries) in ${dir}/in$`)) },
      ],
      host_key: null,
    });
    expect(await names(dir)).toEqual([]);
    const notTried = (name: string) => ({ name, ok: false, message: "not tried: an earlier check failed" });
    const failed = async (settings: Record<string, unknown>, words: RegExp, hostKey: unknown = null) =>
      expect(await test(await make(sftpSettings(dir, settings)))).toEqual({
        ok: false,
        checks: [{ name: "connect", ok: false, message: expect.stringMatching(words) }, notTried("list"), notTried("write"), notTried("delete")],
        host_key: hostKey,
      });
    await failed({ port: refusedPort }, /^refused: /);
    await failed({ password: "wrong" }, /^auth: /);
    // A mismatch reports the key the server shows: what the console offers to pin.
    await failed({ host_key_fingerprint: "SHA256:" + "C".repeat(43) }, /^host_key_mismatch: /, { fingerprint: server.hostKeyFingerprint, type: expect.stringMatching(/^(ssh-ed25519|ecdsa-sha2-nistp256|rsa-sha2-512|rsa-sha2-256|ssh-rsa)$/) });
    await failed({ host: "no-such-host.invalid" }, /^dns: /);
    const started = Date.now();
    await failed({ port: server.hangPort }, /^timeout: /);
    // FILE_TRANSFER_TIMEOUT_MS is 8000 in the tests; the lease is OUTBOUND_TIMEOUT_MS + 60 s.
    expect(Date.now() - started).toBeLessThan(8000 + 5000);
    const readonly = await test(await make(sftpSettings("readonly")));
    expect(readonly.checks.map((c: { name: string; ok: boolean }) => [c.name, c.ok])).toEqual([
      ["connect", true],
      ["list", true],
      ["write", false],
      ["delete", false],
    ]);
    expect(readonly.checks[2].message).toMatch(/^permission_denied: /);
  });
});

describe("the file channel over plain FTP", () => {
  it("an order arrives as an XML file, atomically, in the supplier's folder on vsftpd", async () => {
    const ftp = inject("ftpServer");
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, {
      channel: "file",
      file_transfer: { protocol: "ftp", host: ftp.host, port: ftp.port, username: ftp.username, password: ftp.password, directory: "upload", format: "xml", filename: "order-{dispatch_id}.{ext}" },
    });
    const { reference } = await createOrder(creds, TWO_LINES);
    await orderSettled(creds, reference, ["completed"]);
    const [dispatch] = await dispatchesOf(creds, reference);
    expect(dispatch.attempt_log.map((a: { outcome: string; to: string }) => [a.outcome, a.to])).toEqual([["accepted", `ftp://${ftp.host}:${ftp.port}/upload/order-${dispatch.id}.xml`]]);
    const s = await ftpConnector({ protocol: "ftp", host: ftp.host, port: ftp.port, username: ftp.username, password: ftp.password, timeoutMs: 20_000 });
    try {
      const xml = text(await s.read(`upload/order-${dispatch.id}.xml`, 1 << 20));
      expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n<order>\n  <id>')).toBe(true);
      expect(xml.endsWith("</order>\n")).toBe(true);
      expect(xml).toContain(`  <dispatch_id>${dispatch.id}</dispatch_id>\n`);
      expect(xml).toContain("      <name>Red &quot;pot&quot;</name>\n");
      expect(xml).toContain("      <reference>POT; RED</reference>\n");
      expect((await s.list("upload")).filter((f) => f.name.includes(`order-${dispatch.id}.`)).map((f) => f.name)).toEqual([`order-${dispatch.id}.xml`]);
    } finally {
      await s.close();
    }
    await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { active: false } });
  });
});

describe("answer files read back by the cron", () => {
  /** A supplier on SFTP with an inbound folder, and an order of two lines it was sent. */
  async function sentOrder(settings: Record<string, unknown> | ((dir: string) => Record<string, unknown>) = {}) {
    const creds = await createAccount();
    const dir = folder();
    const inbound = typeof settings === "function" ? settings(dir) : settings;
    const { supplier } = await supplierWithRule(creds, {
      channel: "file",
      file_transfer: sftpSettings(dir, { inbound: { directory: `${dir}/in`, archive_directory: `${dir}/in/done`, ...inbound } }),
    });
    const { reference } = await createOrder(creds, TWO_LINES);
    const order = await orderSettled(creds, reference, ["completed"]);
    const lineIds: number[] = order.order_lines.map((l: { id: number }) => l.id);
    return { creds, dir, supplier, reference, lineIds };
  }
  const drop = (path: string, body: string) => onServer((s) => s.writeAtomic(path, new TextEncoder().encode(body)));

  it("a tracking CSV completes the lines with their shipments, and the shop sees them; the file is archived", async () => {
    const { creds, dir, supplier, reference, lineIds } = await sentOrder();
    await drop(
      `${dir}/in/tracking.csv`,
      "order_reference,sku,action,quantity,carrier,tracking_number,tracking_url\r\n" +
        `${reference},MUG-BLUE,ship,2,PostNL,3SABC,https://track.example/3SABC\r\n` +
        `${reference},"POT; RED",ship,1,DHL,JJD01,https://track.example/JJD01\r\n`,
    );
    await cron();
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    expect(order.order_lines.map((l: { shipments: unknown[] }) => l.shipments)).toEqual([
      [{ id: expect.any(Number), quantity: 2, carrier: "PostNL", tracking_number: "3SABC", tracking_url: "https://track.example/3SABC", created_at: ISO }],
      [{ id: expect.any(Number), quantity: 1, carrier: "DHL", tracking_number: "JJD01", tracking_url: "https://track.example/JJD01", created_at: ISO }],
    ]);
    expect(order.order_lines[0].logs.at(-1).message).toMatch(/^Shipped 2 by supplier /);
    expect(await names(`${dir}/in`)).toEqual([]);
    expect(await names(`${dir}/in/done`)).toEqual(["tracking.csv"]);
    const listed = await inboundFiles(creds, supplier.id);
    expect(listed.data).toEqual([
      {
        id: expect.any(Number),
        name: "tracking.csv",
        size: expect.any(Number),
        modified_at: ISO,
        status: "done",
        error: null,
        rows_applied: 2,
        rows_refused: 0,
        archived_to: `${dir}/in/done/tracking.csv`,
        claimed_at: ISO,
        finished_at: ISO,
        rows: [
          { row: 1, line_id: lineIds[0], action: "ship", result: "applied", message: null },
          { row: 2, line_id: lineIds[1], action: "ship", result: "applied", message: null },
        ],
      },
    ]);
    await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { active: false } });
  });

  it("good and bad rows: each applied or refused with the supplier API's reason, the good ones applied", async () => {
    const { creds, dir, supplier, reference, lineIds } = await sentOrder({ archive_directory: null, columns: [
      { field: "line_id", header: "Line" },
      { field: "action", header: "Action" },
      { field: "quantity", header: "Qty" },
      { field: "reason", header: "Why" },
      { field: "order_reference", header: "Order" },
      { field: "external_id", header: "Product" },
      { field: "tracking_url", header: "Track" },
    ] });
    await drop(
      `${dir}/in/answers.csv`,
      "Line;Action;Qty;Why;Order;Product;Track\n" +
        `${lineIds[0]};accept;;;;;\n` +
        `${lineIds[1]};decline;;;;;\n` +
        `;ship;5;;${reference};mug-1;\n` +
        `;ship;1;;${reference};nothing-1;\n` +
        `999999999;accept;;;;;\n` +
        `${lineIds[1]};cancel;;;;;\n` +
        `${lineIds[1]};ship;1;;;;not a url\n` +
        `;accept;;;;;\n` +
        `${lineIds[1]};decline;;Out of stock;;;\n`,
    );
    await cron();
    const [file] = (await inboundFiles(creds, supplier.id)).data;
    expect(file).toMatchObject({ name: "answers.csv", status: "done", rows_applied: 2, rows_refused: 7, archived_to: null });
    expect(file.rows).toEqual([
      { row: 1, line_id: lineIds[0], action: "accept", result: "applied", message: null },
      { row: 2, line_id: lineIds[1], action: "decline", result: "refused", message: "The reason field is required when action is decline." },
      {
        row: 3,
        line_id: lineIds[0],
        action: "ship",
        result: "refused",
        message: `The quantity field must not be greater than 2, what is left to ship of line ${lineIds[0]} (0 of 2 shipped).`,
      },
      { row: 4, line_id: null, action: "ship", result: "refused", message: `No line of order ${reference} sent to this supplier has external id nothing-1.` },
      { row: 5, line_id: 999999999, action: "accept", result: "refused", message: "Order line with id '999999999' not found" },
      { row: 6, line_id: lineIds[1], action: "cancel", result: "refused", message: expect.stringMatching(/^The selected action is invalid\. Allowed values: accept, decline, /) },
      { row: 7, line_id: lineIds[1], action: "ship", result: "refused", message: "The tracking_url field must be a valid http(s) URL." },
      { row: 8, line_id: null, action: "accept", result: "refused", message: "The row names no line: give line_id, or order_reference with external_id or sku." },
      { row: 9, line_id: lineIds[1], action: "decline", result: "applied", message: null },
    ]);
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    expect(order.order_lines.map((l: { current_status: string }) => l.current_status)).toEqual(["completed", "declined"]);
    // Without an archive folder the file stays, recognised by name, size and modification time: a second run does nothing.
    await cron();
    expect((await inboundFiles(creds, supplier.id)).data).toHaveLength(1);
    expect(await names(`${dir}/in`)).toEqual(["answers.csv"]);
    await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { active: false } });
  });

  it("answer files in JSON and XML, their fields named by the setting's columns", async () => {
    const columns = [
      { field: "line_id", header: "regel" },
      { field: "action", header: "actie" },
      { field: "reason", header: "reden" },
    ];
    const json = await sentOrder({ format: "json", columns });
    await drop(`${json.dir}/in/answers.json`, JSON.stringify([{ regel: json.lineIds[0], actie: "accept" }, { regel: json.lineIds[1], actie: "decline", reden: "Uitverkocht" }]));
    const xml = await sentOrder({ format: "xml", columns });
    await drop(
      `${xml.dir}/in/answers.xml`,
      `<?xml version="1.0"?><answers><answer><regel>${xml.lineIds[0]}</regel><actie>accept</actie></answer>` +
        `<answer><regel>${xml.lineIds[1]}</regel><actie>decline</actie></answer></answers>`,
    );
    await cron();
    const rowsOf = async (t: typeof json) => (await inboundFiles(t.creds, t.supplier.id)).data[0].rows;
    expect(await rowsOf(json)).toEqual([
      { row: 1, line_id: json.lineIds[0], action: "accept", result: "applied", message: null },
      { row: 2, line_id: json.lineIds[1], action: "decline", result: "applied", message: null },
    ]);
    expect(await rowsOf(xml)).toEqual([
      { row: 1, line_id: xml.lineIds[0], action: "accept", result: "applied", message: null },
      { row: 2, line_id: xml.lineIds[1], action: "decline", result: "refused", message: "The reason field is required when action is decline." },
    ]);
    for (const t of [json, xml]) await call("PATCH", `/api/v1/suppliers/${t.supplier.id}`, { creds: t.creds, body: { active: false } });
  });

  it("a file is processed once under two overlapping cron runs", async () => {
    const { creds, dir, supplier, reference, lineIds } = await sentOrder({ archive_directory: null });
    await drop(`${dir}/in/ship.csv`, `line_id,action,quantity,tracking_number\n${lineIds[0]},ship,1,T-1\n${lineIds[0]},ship,1,T-2\n`);
    await Promise.all([cron(), cron(Date.now() + 3)]);
    const listed = (await inboundFiles(creds, supplier.id)).data;
    expect(listed.map((f: { name: string; rows_applied: number }) => [f.name, f.rows_applied])).toEqual([["ship.csv", 2]]);
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    expect(order.order_lines[0].shipments.map((s: { tracking_number: string }) => s.tracking_number)).toEqual(["T-1", "T-2"]);
    const claims = await rows<{ n: number }>("SELECT count(*) AS n FROM inbound_files WHERE supplier_id = ?", supplier.id);
    expect(claims[0].n).toBe(1);
    await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { active: false } });
  });

  it("a run that died after applying a file's rows and before recording them: taken over, its partial shipments are not shipped twice", async () => {
    const { creds, dir, supplier, reference, lineIds } = await sentOrder({ archive_directory: null });
    // Partial shipments without a tracking number or shipment id: nothing of the row itself tells a repeat.
    await drop(`${dir}/in/ship.csv`, `line_id,action,quantity\n${lineIds[0]},ship,1\n`);
    await cron();
    const shipped = async () => (await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines[0].shipments.map((s: { quantity: number }) => s.quantity);
    expect(await shipped()).toEqual([1]);
    // As the run that died leaves it: claimed, the rows applied, nothing recorded; its lease (INBOUND_LEASE_MS) run out.
    const [file] = await rows<{ id: number }>("SELECT id FROM inbound_files WHERE supplier_id = ?", supplier.id);
    await exec("DELETE FROM inbound_file_rows WHERE file_id = ?", file.id);
    const stale = new Date(Date.now() - 11 * 60_000).toISOString().replace("Z", "000Z");
    await exec(
      "UPDATE inbound_files SET status = 'processing', rows_applied = 0, rows_refused = 0, finished_at = NULL, claimed_at = ?, lease_until = ? WHERE id = ?",
      stale,
      stale,
      file.id,
    );
    await cron();
    expect(await shipped()).toEqual([1]);
    const listed = (await inboundFiles(creds, supplier.id)).data;
    expect(listed.map((f: { status: string; rows: { result: string }[] }) => [f.status, f.rows.map((r) => r.result)])).toEqual([["done", ["applied"]]]);
    await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { active: false } });
  });

  it("a run cut off at the move to the archive: the file's rows are recorded once and the next run only moves it", async () => {
    // The archive folder does not exist yet: the move fails, as a run killed between applying the
    // rows and moving the file stops there (found by bench/recovery/answer-files.mjs's reasoning, issue 30).
    const { creds, dir, supplier, reference, lineIds } = await sentOrder((d) => ({ archive_directory: `${d}/in/later` }));
    await drop(`${dir}/in/ship.csv`, `line_id,action,quantity\n${lineIds[0]},ship,1\n`);
    await cron().catch(() => undefined);
    const shipped = async () => (await call("GET", `/api/v1/orders/${reference}`, { creds })).json.order_lines[0].shipments.map((s: { quantity: number }) => s.quantity);
    expect(await shipped()).toEqual([1]);
    const recorded = async () => (await inboundFiles(creds, supplier.id)).data.map((f: { status: string; archived_to: string | null; rows: { result: string }[] }) => [f.status, f.archived_to, f.rows.map((r) => r.result)]);
    // Recorded, not left 'processing' (which a take-over looks for in the inbound folder only).
    expect(await recorded()).toEqual([["done", `${dir}/in/later/ship.csv`, ["applied"]]]);
    // The folder there (the empty in/done renamed to it); the next run, 11 minutes on (past any
    // claim), moves the file and applies nothing again.
    await onServer((s) => s.rename(`${dir}/in/done`, `${dir}/in/later`));
    await cron(Date.now() + 11 * 60_000);
    expect(await names(`${dir}/in/later`)).toEqual(["ship.csv"]);
    expect(await names(`${dir}/in`)).toEqual([]);
    expect(await shipped()).toEqual([1]);
    expect(await recorded()).toEqual([["done", `${dir}/in/later/ship.csv`, ["applied"]]]);
    await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { active: false } });
  });

  it(`at most ${INBOUND_FILES_PER_RUN} files a cron run (D1's queries per invocation): ${INBOUND_FILES_PER_RUN} read in one run, the one past them (the newest) in the next`, async () => {
    const { creds, dir, supplier, lineIds } = await sentOrder();
    const all = Array.from({ length: INBOUND_FILES_PER_RUN + 1 }, (_, i) => `a-${String(i + 1).padStart(2, "0")}.csv`);
    for (const name of all) await drop(`${dir}/in/${name}`, `line_id,action\n${lineIds[0]},accept\n`);
    await cron();
    expect(await names(`${dir}/in`)).toEqual([all.at(-1)]);
    expect(await names(`${dir}/in/done`)).toEqual(all.slice(0, -1));
    expect((await inboundFiles(creds, supplier.id, "?per_page=100")).data.map((f: { name: string; status: string }) => [f.name, f.status])).toEqual(all.slice(0, -1).reverse().map((n) => [n, "done"]));
    await cron();
    expect(await names(`${dir}/in`)).toEqual([]);
    expect(await names(`${dir}/in/done`)).toEqual(all);
    const recorded = (await inboundFiles(creds, supplier.id, "?per_page=100")).data;
    expect(recorded.map((f: { name: string; rows_applied: number }) => [f.name, f.rows_applied])).toEqual([...all].reverse().map((n) => [n, 1]));
    await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { active: false } });
  });

  it("a dead run's file is taken over once its lease has run out: not by a run at the lease's last instant, by the run one millisecond past it", async () => {
    const { creds, dir, supplier, reference, lineIds } = await sentOrder({ archive_directory: null });
    await drop(`${dir}/in/ship.csv`, `line_id,action,quantity,tracking_number\n${lineIds[0]},ship,1,L-1\n`);
    await cron();
    // As a run that died leaves it: claimed under a lease it no longer renews, nothing recorded.
    const [file] = await rows<{ id: number }>("SELECT id FROM inbound_files WHERE supplier_id = ?", supplier.id);
    const end = Date.now() + INBOUND_LEASE_MS;
    await exec("DELETE FROM inbound_file_rows WHERE file_id = ?", file.id);
    await exec("UPDATE inbound_files SET status = 'processing', rows_applied = 0, finished_at = NULL, lease_until = ? WHERE id = ?", isoMicro(new Date(end)), file.id);
    const state = async () => (await inboundFiles(creds, supplier.id)).data.map((f: { status: string; rows: { result: string }[] }) => [f.status, f.rows.map((r) => r.result)]);
    await cron(end);
    expect(await state()).toEqual([["processing", []]]);
    await cron(end + 1);
    expect(await state()).toEqual([["done", ["applied"]]]);
    // Applied again by the run that took it over, the shipment is still one (its tracking number).
    const order = (await call("GET", `/api/v1/orders/${reference}`, { creds })).json;
    expect(order.order_lines[0].shipments.map((s: { tracking_number: string }) => s.tracking_number)).toEqual(["L-1"]);
    await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { active: false } });
  });

  it("a 10,000-row answer file: every row's result kept, paginated by file", async () => {
    const { creds, dir, supplier, lineIds } = await sentOrder();
    // 10,000 rows: the first accepts line 1, the other 9,999 repeat it (a note each, nothing changed).
    const body = ["line_id,action", ...Array.from({ length: 10_000 }, () => `${lineIds[0]},accept`)].join("\n") + "\n";
    await drop(`${dir}/in/big.csv`, body);
    const started = Date.now();
    await cron();
    const elapsed = Date.now() - started;
    const [file] = (await inboundFiles(creds, supplier.id, "?per_page=1")).data;
    expect(file).toMatchObject({ name: "big.csv", status: "done", rows_applied: 10_000, rows_refused: 0 });
    expect(file.rows).toHaveLength(10_000);
    expect(file.rows.at(-1)).toEqual({ row: 10_000, line_id: lineIds[0], action: "accept", result: "applied", message: null });
    console.log(JSON.stringify({ measured: "10,000-row answer file", ms: elapsed }));
    await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { active: false } });
  });
});
