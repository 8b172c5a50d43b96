// Return answer files (src/returns/answer-files.ts; docs/returns.md) against the real OpenSSH server
// of the file channel's tests: a file supplier drops return-answers….csv/.json in its inbound folder
// and the cron applies each answer through the same move as the supplier API. Each file is claimed
// once (two overlapping cron runs apply it once); a bad row is refused with the API's reason and
// nothing of it is applied (a receipt of two rows refused whole), the good ones around it are.
import { createExecutionContext, createScheduledController, waitOnExecutionContext } from "cloudflare:test";
import { env } from "cloudflare:workers";
import { describe, expect, inject, it } from "vitest";
import worker from "../../src/index";
import { createAccount, createOrder, rows } from "../helpers/factories";
import { onSftpServer } from "../helpers/file-servers";
import { call, type Credentials } from "../helpers/http";
import { answered, ship } from "../helpers/shops";
import { orderSettled, supplierWithRule } from "../helpers/suppliers";
import { requestReturn } from "./support";

const server = inject("sftp");

async function cron(at = Date.now()) {
  const ctx = createExecutionContext();
  await worker.scheduled(createScheduledController({ cron: "* * * * *", scheduledTime: at }), env, ctx);
  await waitOnExecutionContext(ctx);
}
const drop = (path: string, body: string) => onSftpServer((s) => s.writeAtomic(path, new TextEncoder().encode(body)));
const names = (directory: string) => onSftpServer(async (s) => (await s.list(directory)).filter((f) => !f.isDirectory).map((f) => f.name).sort());

describe("return answer files read back by the cron", () => {
  /** A file supplier on SFTP (upload/<dir>) with an order of two lines it shipped, returned whole: one return. */
  async function returnedOrder(dir: string) {
    const creds = await createAccount();
    const { supplier } = await supplierWithRule(creds, {
      channel: "file",
      file_transfer: {
        protocol: "sftp", host: server.host, port: server.port, username: server.username, password: server.password,
        host_key_fingerprint: server.hostKeyFingerprint, directory: dir,
        inbound: { directory: `${dir}/in`, archive_directory: `${dir}/in/done` },
      },
    });
    const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key as string;
    const { reference } = await createOrder(creds, { products: [
      { external_id: "m", name: "Blue mug", quantity: 2, price: 12.5 },
      { external_id: "p", name: "Red plate", quantity: 1, price: 20 },
    ] });
    const [mug, plate] = (await orderSettled(creds, reference, ["completed"])).order_lines.map((l: { id: number }) => l.id) as number[];
    await answered(key, [ship(mug, 2, "3SM"), ship(plate, 1, "3SP")]);
    const created = await requestReturn(creds, reference, { lines: [{ line_id: mug, quantity: 2 }, { line_id: plate, quantity: 1 }] });
    expect(created.status, created.text).toBe(201);
    const id = created.json.data[0].id as number;
    return { creds, supplier, mug, plate, id, view: async () => (await call("GET", `/api/v1/returns/${id}`, { creds })).json };
  }
  const HEADER = "return_id,action,rma,return_address,label_url,reason,line_id,quantity,condition,amount,currency\r\n";
  const filesOf = async (creds: Credentials, supplierId: number) => (await call("GET", `/api/v1/suppliers/${supplierId}/inbound-files`, { creds })).json.data;

  it("50 answers in a file are read, 51 refuse the file whole with the reason, nothing of it applied", async () => {
    const dir = "upload/ret-2";
    const { creds, supplier, id, view } = await returnedOrder(dir);
    const unknown = (n: number) => Array.from({ length: n }, (_, i) => `${999_000_000 + i},decline,,,,Not ours,,,,,\r\n`).join("");
    const good = `${id},authorise,RMA-51,Dock 1,,,,,,,\r\n`;
    await drop(`${dir}/in/return-answers-51.csv`, HEADER + good + unknown(50));
    await cron();
    const [refused] = await filesOf(creds, supplier.id);
    expect(refused).toMatchObject({ name: "return-answers-51.csv", status: "failed", rows_applied: 0, rows_refused: 0, rows: [],
      error: "The file holds 51 answers; a return answer file holds at most 50 (a receipt's rows count as one): split it, nothing of it was applied." });
    expect((await view()).status).toBe("requested");

    await drop(`${dir}/in/return-answers-50.csv`, HEADER + good + unknown(49));
    await cron();
    const [read] = await filesOf(creds, supplier.id);
    expect(read).toMatchObject({ name: "return-answers-50.csv", status: "done", rows_applied: 1, rows_refused: 49 });
    expect(read.rows[0]).toEqual({ row: 1, line_id: null, action: "authorise", result: "applied", message: `Return ${id}: authorised` });
    expect((await view()).status).toBe("authorised");
    await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { active: false } });
  });

  it("a CSV and a JSON file: good answers applied, bad ones refused with the reason and nothing of them applied; each file claimed once", async () => {
    const creds = await createAccount();
    const dir = "upload/ret-1";
    const { supplier } = await supplierWithRule(creds, {
      channel: "file",
      file_transfer: {
        protocol: "sftp", host: server.host, port: server.port, username: server.username, password: server.password,
        host_key_fingerprint: server.hostKeyFingerprint, directory: dir,
        inbound: { directory: `${dir}/in`, archive_directory: `${dir}/in/done` },
      },
    });
    const key = (await call("POST", `/api/v1/suppliers/${supplier.id}/keys`, { creds, body: {} })).json.key as string;
    const { reference } = await createOrder(creds, { products: [
      { external_id: "m", name: "Blue mug", quantity: 2, price: 12.5 },
      { external_id: "p", name: "Red plate", quantity: 1, price: 20 },
    ] });
    const [mug, plate] = (await orderSettled(creds, reference, ["completed"])).order_lines.map((l: { id: number }) => l.id) as number[];
    await answered(key, [ship(mug, 2, "3SM"), ship(plate, 1, "3SP")]);
    const created = await requestReturn(creds, reference, { lines: [{ line_id: mug, quantity: 2 }, { line_id: plate, quantity: 1 }] });
    expect(created.status, created.text).toBe(201);
    const id = created.json.data[0].id as number;
    const view = async () => (await call("GET", `/api/v1/returns/${id}`, { creds })).json;

    await drop(
      `${dir}/in/return-answers-1.csv`,
      "return_id,action,rma,return_address,label_url,reason,line_id,quantity,condition,amount,currency\r\n" +
        `${id},credit,,,,,,,,5,EUR\r\n` +
        `${id},authorise,,,ftp://label,,,,,,\r\n` +
        `${id},authorise,RMA-F1,"Dock 9, Venlo",,,,,,,\r\n` +
        `${id},receive,,,,,${mug},3,new,,\r\n` +
        `${id},receive,,,,,${plate},1,damaged,,\r\n` +
        `999999999,decline,,,,Not ours,,,,,\r\n` +
        `,decline,,,,No id,,,,,\r\n`,
    );
    // Two overlapping cron runs: the file is claimed by one, applied once.
    await Promise.all([cron(), cron()]);
    expect(await rows("SELECT count(*) AS n FROM inbound_files WHERE supplier_id = ?", supplier.id)).toEqual([{ n: 1 }]);
    const [file] = (await call("GET", `/api/v1/suppliers/${supplier.id}/inbound-files`, { creds })).json.data;
    expect(file).toMatchObject({ name: "return-answers-1.csv", status: "done", rows_applied: 1, rows_refused: 6, archived_to: `${dir}/in/done/return-answers-1.csv` });
    const overQuantity = `Return ${id}: The lines.0.quantity field must not be greater than 2, what return ${id} asks back of line ${mug}.`;
    expect(file.rows).toEqual([
      { row: 1, line_id: null, action: "credit", result: "refused", message: `Return ${id}: Return ${id} is requested; it cannot be given the answer 'credit' (only when received).` },
      { row: 2, line_id: null, action: "authorise", result: "refused", message: `Return ${id}: The label_url field must be a valid http(s) URL. The rma field is required when action is authorise.` },
      { row: 3, line_id: null, action: "authorise", result: "applied", message: `Return ${id}: authorised` },
      { row: 4, line_id: mug, action: "receive", result: "refused", message: overQuantity },
      { row: 5, line_id: plate, action: "receive", result: "refused", message: overQuantity },
      { row: 6, line_id: null, action: "decline", result: "refused", message: "Return 999999999: Return with id '999999999' not found" },
      { row: 7, line_id: null, action: "decline", result: "refused", message: "The row names no return: give its return_id." },
    ]);
    const authorised = await view();
    expect(authorised).toMatchObject({ status: "authorised", rma: "RMA-F1", return_address: "Dock 9, Venlo", lines: [{ received_quantity: null }, { received_quantity: null }] });
    expect(authorised.logs.at(-1).by).toBe(`supplier ${supplier.name} (answer file)`);
    expect(await names(`${dir}/in`)).toEqual([]);

    // The JSON file: the receipt of both lines and the close, each as the API's body with its return_id.
    await drop(`${dir}/in/return-answers-2.json`, JSON.stringify({ answers: [
      { return_id: id, action: "receive", lines: [{ line_id: mug, quantity: 2, condition: "opened" }, { line_id: plate, quantity: 0, condition: "damaged" }] },
      { return_id: id, action: "close", reason: "Plate never arrived" },
    ] }));
    await cron();
    await cron();
    const files = (await call("GET", `/api/v1/suppliers/${supplier.id}/inbound-files`, { creds })).json.data;
    expect(files.map((f: { name: string; status: string }) => [f.name, f.status])).toEqual([["return-answers-2.json", "done"], ["return-answers-1.csv", "done"]]);
    expect(files[0].rows).toEqual([
      { row: 1, line_id: mug, action: "receive", result: "applied", message: `Return ${id}: received` },
      { row: 2, line_id: null, action: "close", result: "applied", message: `Return ${id}: closed` },
    ]);
    expect(await view()).toMatchObject({
      status: "closed",
      close_reason: "Plate never arrived",
      lines: [{ line_id: mug, received_quantity: 2, condition: "opened" }, { line_id: plate, received_quantity: 0, condition: "damaged" }],
    });
    expect(await names(`${dir}/in/done`)).toEqual(["return-answers-1.csv", "return-answers-2.json"]);
    await call("PATCH", `/api/v1/suppliers/${supplier.id}`, { creds, body: { active: false } });
  });
});
