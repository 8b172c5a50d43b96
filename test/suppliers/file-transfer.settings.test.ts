// The file channel's settings (file_transfer): what reads show (never the password or the key),
// the secret sealed at rest, 422s naming the field with nothing stored, and every limit at its
// maximum and one past it.
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { createAccount } from "../helpers/factories";
import { call, type Credentials } from "../helpers/http";

const FINGERPRINT = "SHA256:" + "A".repeat(43);
const sftp = { protocol: "sftp", host: "sftp.tuinhout.example", username: "orders", password: "hunter2-secret", host_key_fingerprint: FINGERPRINT };
const invalid = (errors: Record<string, string[]>) => ({ status: 422, json: { message: "Errors", errors } });
const create = (creds: Credentials, file_transfer: unknown, extra: Record<string, unknown> = {}) =>
  call("POST", "/api/v1/suppliers", { creds, body: { name: "Files", channel: "file", file_transfer, ...extra } });

async function stored(supplierId: number) {
  return env.DB.prepare("SELECT file_transfer, file_transfer_secret FROM suppliers WHERE id = ?").bind(supplierId).first<{ file_transfer: string | null; file_transfer_secret: string | null }>();
}
const secretOf = async (supplierId: number) =>
  (await env.DB.prepare("SELECT webhook_secret FROM suppliers WHERE id = ?").bind(supplierId).first<{ webhook_secret: string | null }>())?.webhook_secret;
const supplierCount = async (creds: Credentials) => (await call("GET", "/api/v1/suppliers", { creds })).json.data.length;

describe.concurrent("file_transfer settings", () => {
  it("a supplier on SFTP: every setting with its defaults shown, the password neither shown nor stored in clear", async () => {
    const creds = await createAccount();
    const res = await create(creds, sftp);
    expect(res.status).toBe(201);
    const shown = {
      protocol: "sftp",
      host: "sftp.tuinhout.example",
      port: 22,
      username: "orders",
      authentication: "password",
      host_key_fingerprint: FINGERPRINT,
      directory: ".",
      filename: "{reference}-{dispatch_id}.{ext}",
      cancellation_filename: "cancellation-{reference}-{cancellation_id}.{ext}",
      format: "csv",
      columns: null,
      delimiter: ",",
      encoding: "utf-8",
      inbound: null,
    };
    expect(res.json.channel).toBe("file");
    expect(res.json.file_transfer).toEqual(shown);
    expect((await call("GET", `/api/v1/suppliers/${res.json.id}`, { creds })).json.file_transfer).toEqual(shown);
    expect(JSON.stringify((await call("GET", "/api/v1/suppliers", { creds })).json)).not.toContain("hunter2");
    const row = await stored(res.json.id);
    expect(row!.file_transfer).not.toContain("hunter2");
    expect(row!.file_transfer_secret).toMatch(/^v1\.[0-9a-f]{8}\.[\w-]+\.[\w-]+$/);
    expect(row!.file_transfer_secret).not.toContain("hunter2");
  });

  it("a file supplier is handed no webhook signing secret; one is minted when it moves to the webhook channel", async () => {
    const creds = await createAccount();
    const res = await create(creds, sftp);
    expect(res.status).toBe(201);
    expect(res.json.webhook_secret).toBeNull();
    expect(await secretOf(res.json.id)).toBeNull();
    const moved = await call("PATCH", `/api/v1/suppliers/${res.json.id}`, { creds, body: { channel: "webhook", webhook_url: "https://supplier.example/orders" } });
    expect(moved.status).toBe(200);
    expect(await secretOf(res.json.id)).toMatch(/^whsec_[0-9a-f]{64}$/);
    const rotated = await call("POST", `/api/v1/suppliers/${res.json.id}/rotate-secret`, { creds, body: {} });
    expect(rotated.json.webhook_secret).toMatch(/^whsec_[0-9a-f]{64}$/);
  });

  it("an update without a password keeps the stored one; with a private key, the kind changes; null clears the setting off the file channel", async () => {
    const creds = await createAccount();
    const { id } = (await create(creds, sftp)).json;
    const sealed = (await stored(id))!.file_transfer_secret;
    const patch = (body: unknown) => call("PATCH", `/api/v1/suppliers/${id}`, { creds, body });
    const { password: _, ...withoutPassword } = sftp;
    const kept = await patch({ file_transfer: { ...withoutPassword, directory: "in", port: 2222 } });
    expect(kept.status).toBe(200);
    expect(kept.json.file_transfer).toMatchObject({ directory: "in", port: 2222, authentication: "password" });
    expect((await stored(id))!.file_transfer_secret).toBe(sealed);
    const key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n";
    const withKey = await patch({ file_transfer: { ...withoutPassword, private_key: key } });
    expect(withKey.json.file_transfer.authentication).toBe("private_key");
    expect(JSON.stringify(withKey.json)).not.toContain("b3BlbnNzaC1rZXkt");
    // The key is for SFTP only: moving to FTP needs a password.
    expect(await patch({ file_transfer: { protocol: "ftp", host: "ftp.example", username: "u" } }).then((r) => ({ status: r.status, json: r.json }))).toEqual(
      invalid({ "file_transfer.password": ["The file_transfer.password field is required: the stored private key is only for protocol sftp."] }),
    );
    expect(await patch({ file_transfer: null }).then((r) => ({ status: r.status, json: r.json }))).toEqual(
      invalid({ file_transfer: ["The file_transfer field is required when channel is file."] }),
    );
    const cleared = await patch({ channel: "manual", file_transfer: null });
    expect(cleared.json).toMatchObject({ channel: "manual", file_transfer: null });
    expect(await stored(id)).toEqual({ file_transfer: null, file_transfer_secret: null });
  });

  it("bad settings: 422 naming each field, nothing stored", async () => {
    const creds = await createAccount();
    const refused = async (file_transfer: unknown, extra: Record<string, unknown> = {}) => {
      const res = await create(creds, file_transfer, extra);
      return { status: res.status, json: res.json };
    };
    expect(await refused(undefined)).toEqual(invalid({ file_transfer: ["The file_transfer field is required when channel is file."] }));
    expect(await refused({ protocol: "scp", host: "bad host", username: "", port: 0 })).toEqual(
      invalid({
        "file_transfer.protocol": ["The selected file_transfer.protocol is invalid. Allowed values: ftp, ftps, sftp."],
        "file_transfer.host": ["The file_transfer.host field must be a host name or an IP address."],
        "file_transfer.username": ["The file_transfer.username field is required."],
        "file_transfer.port": ["The file_transfer.port field must be at least 1."],
      }),
    );
    const { host_key_fingerprint: _, ...noFingerprint } = sftp;
    expect(await refused(noFingerprint)).toEqual(invalid({ "file_transfer.host_key_fingerprint": ["The file_transfer.host_key_fingerprint field is required when protocol is sftp."] }));
    expect(await refused({ ...sftp, host_key_fingerprint: "SHA256:short" })).toEqual(
      invalid({ "file_transfer.host_key_fingerprint": ["The file_transfer.host_key_fingerprint field must be a SHA-256 fingerprint as ssh-keygen -lf prints it (SHA256:…)."] }),
    );
    expect(await refused({ protocol: "ftp", host: "ftp.example", username: "u", password: "p", private_key: "x" })).toEqual(
      invalid({
        "file_transfer.private_key": [
          "The file_transfer.private_key field must not be given with password: choose one.",
          "The file_transfer.private_key field is only for protocol sftp.",
          "The file_transfer.private_key field must be a private key in PEM (-----BEGIN … PRIVATE KEY-----).",
        ],
      }),
    );
    expect(await refused({ protocol: "ftp", host: "ftp.example", username: "u" })).toEqual(
      invalid({ "file_transfer.password": ["The file_transfer.password field is required when no private_key is given."] }),
    );
    expect(await refused({ ...sftp, filename: "orders/{reference}.csv", cancellation_filename: "{nope}-{cancellation_id}", directory: "../etc" })).toEqual(
      invalid({
        "file_transfer.filename": ["The file_transfer.filename field must be a file name, without '/' or '\\'.", "The file_transfer.filename field must contain {dispatch_id}."],
        "file_transfer.cancellation_filename": [
          "The file_transfer.cancellation_filename field has an unknown placeholder {nope}. Allowed: {reference}, {external_id}, {dispatch_id}, {cancellation_id}, {supplier_id}, {date}, {ext}.",
        ],
        "file_transfer.directory": ["The file_transfer.directory field must not contain '..'."],
      }),
    );
    expect(await refused({ ...sftp, format: "json", columns: [{ field: "sku", header: "SKU" }] })).toEqual(
      invalid({ "file_transfer.columns": ["The file_transfer.columns field is only for format csv."] }),
    );
    expect(await refused({ ...sftp, delimiter: ":", encoding: "utf-16" })).toEqual(
      invalid({
        "file_transfer.delimiter": ['The selected file_transfer.delimiter is invalid. Allowed values: ",", ";", "\\t", "|".'],
        "file_transfer.encoding": ["The selected file_transfer.encoding is invalid. Allowed values: utf-8, iso-8859-1, windows-1252."],
      }),
    );
    // A column header the encoding cannot write would refuse every file: refused now (€ is in windows-1252, not in iso-8859-1).
    const headers = [{ field: "sku", header: "Prijs €" }, { field: "name", header: "Nazwa Łódź" }];
    expect(await refused({ ...sftp, encoding: "iso-8859-1", columns: headers })).toEqual(
      invalid({
        "file_transfer.columns.0.header": ['The file_transfer.columns.0.header field holds "€", which iso-8859-1 cannot write.'],
        "file_transfer.columns.1.header": ['The file_transfer.columns.1.header field holds "Ł", which iso-8859-1 cannot write.'],
      }),
    );
    expect(await refused({ ...sftp, encoding: "windows-1252", columns: headers })).toEqual(
      invalid({ "file_transfer.columns.1.header": ['The file_transfer.columns.1.header field holds "Ł", which windows-1252 cannot write.'] }),
    );
    expect(await refused({ ...sftp, columns: [{ field: "colour", header: "Colour" }], inbound: { format: "csv" } })).toEqual(
      invalid({
        "file_transfer.columns.0.field": [expect.stringMatching(/^The selected file_transfer\.columns\.0\.field is invalid\. Allowed values: dispatch_id, /)],
        "file_transfer.inbound.directory": ["The file_transfer.inbound.directory field is required."],
      }),
    );
    expect(await supplierCount(creds)).toBe(0);
  });

  it("folders: '..' between backslashes as between slashes, and any backslash, refused in each folder field on create and update; nothing stored", async () => {
    const creds = await createAccount();
    const { id } = (await create(creds, { ...sftp, directory: "in", inbound: { directory: "out", archive_directory: "out/done" } })).json;
    const before = await stored(id);
    const dots = "must not contain '..'.";
    const slash = "must separate folders with '/', not '\\'.";
    const cases: [string, string][] = [
      ["..\\..\\etc", dots],
      ["a\\..\\b", dots],
      ["..\\", dots],
      ["in/..\\out", dots],
      ["in/../out", dots],
      ["in/...", dots],
      ["in/.. /x", dots],
      ["in\\orders", slash],
      ["\\in", slash],
    ];
    for (const [folder, message] of cases) {
      const at = {
        "file_transfer.directory": { ...sftp, directory: folder },
        "file_transfer.inbound.directory": { ...sftp, inbound: { directory: folder } },
        "file_transfer.inbound.archive_directory": { ...sftp, inbound: { directory: "out", archive_directory: folder } },
      };
      for (const [name, file_transfer] of Object.entries(at)) {
        const expected = invalid({ [name]: [`The ${name} field ${message}`] });
        const created = await create(creds, file_transfer);
        expect({ folder, status: created.status, json: created.json }).toEqual({ folder, ...expected });
        const updated = await call("PATCH", `/api/v1/suppliers/${id}`, { creds, body: { file_transfer } });
        expect({ folder, status: updated.status, json: updated.json }).toEqual({ folder, ...expected });
      }
    }
    expect(await stored(id)).toEqual(before);
    expect(await supplierCount(creds)).toBe(1);
    // What stays allowed: names with dots in them, "." and absolute folders.
    const fine = await call("PATCH", `/api/v1/suppliers/${id}`, { creds, body: { file_transfer: { ...sftp, directory: "/home/orders/..in/v1.2/.", inbound: { directory: "." } } } });
    expect(fine.status).toBe(200);
    expect(fine.json.file_transfer).toMatchObject({ directory: "/home/orders/..in/v1.2/.", inbound: { directory: ".", archive_directory: null } });
    // Its server does not exist: off, so the cron's answer-file sweep (test/pipeline/cron.runs.test.ts) does not try it.
    await call("PATCH", `/api/v1/suppliers/${id}`, { creds, body: { active: false } });
  });

  it("every limit at its maximum and one past it", async () => {
    const creds = await createAccount();
    const column = { field: "sku", header: "h".repeat(255) };
    const atMax = {
      ...sftp,
      host: `${"a".repeat(63)}.${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(61)}`,
      port: 65_535,
      username: "u".repeat(255),
      password: "p".repeat(1024),
      directory: "d".repeat(1024),
      filename: `{dispatch_id}${"f".repeat(255 - 13)}`,
      columns: Array(50).fill(column),
    };
    expect(atMax.host.length).toBe(253);
    const ok = await create(creds, atMax, { name: "At max" });
    expect(ok.status).toBe(201);
    expect(ok.json.file_transfer).toMatchObject({ host: atMax.host, port: 65_535, username: atMax.username, directory: atMax.directory, filename: atMax.filename });
    expect(ok.json.file_transfer.columns).toHaveLength(50);
    const past = await create(
      creds,
      {
        ...atMax,
        host: `${atMax.host}e`,
        port: 65_536,
        username: `${atMax.username}u`,
        password: `${atMax.password}p`,
        directory: `${atMax.directory}d`,
        filename: `${atMax.filename}f`,
        columns: [...Array(50).fill(column), column],
      },
      { name: "Past max" },
    );
    expect({ status: past.status, json: past.json }).toEqual(
      invalid({
        "file_transfer.host": ["The file_transfer.host field must not be greater than 253 characters."],
        "file_transfer.port": ["The file_transfer.port field must not be greater than 65535."],
        "file_transfer.username": ["The file_transfer.username field must not be greater than 255 characters."],
        "file_transfer.password": ["The file_transfer.password field must not be greater than 1024 characters."],
        "file_transfer.directory": ["The file_transfer.directory field must not be greater than 1024 characters."],
        "file_transfer.filename": ["The file_transfer.filename field must not be greater than 255 characters."],
        "file_transfer.columns": ["The file_transfer.columns field must not have more than 50 items."],
      }),
    );
    const header = await create(creds, { ...sftp, columns: [{ field: "sku", header: "h".repeat(256) }] }, { name: "Header past max" });
    expect({ status: header.status, json: header.json }).toEqual(invalid({ "file_transfer.columns.0.header": ["The file_transfer.columns.0.header field must not be greater than 255 characters."] }));
    expect(await supplierCount(creds)).toBe(1);
  });
});
