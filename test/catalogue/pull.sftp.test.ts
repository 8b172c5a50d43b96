// A feed pulled from a supplier's SFTP server: the real sshd of the SFTP tests
// (test/lib/file-transfer/sftp-server.global.ts), the file in a folder of this test's own
// (test/forwarding/file-channel-folders.global.ts makes upload/fc-30). The credentials ride in the
// URL as an https feed's do; the host key is pinned with host_key_fingerprint.
import { describe, expect, inject, it } from "vitest";
import { createFeed, feedCatalogue } from "../helpers/catalogue";
import { createAccount } from "../helpers/factories";
import { call } from "../helpers/http";
import { onSftpServer } from "../helpers/file-servers";

const server = inject("sftp");
const DIR = "upload/fc-30";
const urlOf = (path: string, fingerprint = server.hostKeyFingerprint) =>
  `sftp://${server.username}:${encodeURIComponent(server.password)}@${server.host}:${server.port}/${path}?host_key_fingerprint=${encodeURIComponent(fingerprint)}`;

const put = (path: string, body: string) => onSftpServer((s) => s.writeAtomic(path, new TextEncoder().encode(body)));

describe("a feed on an SFTP server", () => {
  it("is pulled over SFTP and fills the catalogue", async () => {
    await put(`${DIR}/stock.csv`, "sku;name;purchase_price;stock_quantity\nA;Alpha;1,75;8\nB;Beta;2,50;3\n");
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { url: urlOf(`${DIR}/stock.csv`) });
    const res = await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
    expect(res.status).toBe(201);
    expect(res.json).toMatchObject({ status: "succeeded", rows_read: 2, created: 2, updated: 0 });
    expect(await feedCatalogue(creds, feed.id)).toEqual({
      A: { ean13: null, name: "Alpha", purchase_price: 1.75, stock_quantity: 8, active: 1 },
      B: { ean13: null, name: "Beta", purchase_price: 2.5, stock_quantity: 3, active: 1 },
    });
  });

  it("a host key that is not the pinned one fails the import with that reason, and nothing changes", async () => {
    const creds = await createAccount();
    const { feed } = await createFeed(creds, { url: urlOf(`${DIR}/stock.csv`, "SHA256:" + "D".repeat(43)) });
    const res = await call("POST", `/api/v1/product-feeds/${feed.id}/import`, { creds });
    const history = await call("GET", `/api/v1/product-feeds/${feed.id}/imports`, { creds });
    expect(res.status).toBe(502);
    expect(res.json).toMatchObject({ message: "Bad Gateway", error: history.json.data[0].error });
    expect(history.json.data[0]).toMatchObject({ status: "failed", error: expect.stringMatching(/^The feed file could not be read from sftp:\/\/.*: host_key_mismatch: /) });
    expect(await feedCatalogue(creds, feed.id)).toEqual({});
  });

  it("an sftp URL without a pinned host key, or without a password, is refused with a 422", async () => {
    const creds = await createAccount();
    const refused = async (url: string) => {
      const res = await call("POST", "/api/v1/product-feeds", { creds, body: { supplier_id: 1, name: "x", format: "csv", url } });
      return { status: res.status, errors: res.json.errors?.url };
    };
    expect(await refused(`sftp://u:p@${server.host}/stock.csv`)).toEqual({
      status: 422,
      errors: ["The url field must pin the server's host key: ?host_key_fingerprint=SHA256:… (URL-encoded, as ssh-keygen -lf prints it)."],
    });
    expect(await refused(`ftp://u@${server.host}/stock.csv`)).toEqual({ status: 422, errors: ["The url field must hold the password (ftp://user:password@host/path)."] });
  });
});
