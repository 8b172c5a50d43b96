// A file supplier's "Answer files" section in a real browser: what the shop sees of the files the
// cron read back (when, how many rows applied and refused, each refused row with its reason), and
// what it says before any file was read. The browser suite's Worker has no SFTP server, so the
// cron's results are written straight into its D1 file, as the cron writes them.
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { api, closeBrowser, createShop, expectAccessible, newPage, onWorkerDb, screenshot, signInShop, type Shop } from "../browser/console";

const FINGERPRINT = "SHA256:" + "A".repeat(43);
const fileSupplier = (shop: Shop, name: string, inbound: unknown) =>
  api(shop, "POST", "/api/v1/suppliers", {
    name,
    channel: "file",
    file_transfer: { protocol: "sftp", host: "sftp.tuinhout.example", username: "orders", password: "hunter2-secret", host_key_fingerprint: FINGERPRINT, inbound },
  });

/** An answer file as the cron leaves it once read: its row and each of its rows' results. */
function seedAnswerFile(
  shop: Shop,
  supplierId: number,
  file: { name: string; status: "done" | "failed"; claimedAt: string; error?: string },
  rows: { row: number; action: string; result: "applied" | "refused"; message: string | null }[],
) {
  const applied = rows.filter((r) => r.result === "applied").length;
  onWorkerDb(
    `INSERT INTO inbound_files (account_id, supplier_id, name, size, modified_at, status, rows_applied, rows_refused, error, claimed_at, finished_at)
     VALUES (?, ?, ?, 120, '2026-11-20T08:00:00.000Z', ?, ?, ?, ?, ?, ?)`,
    [shop.accountId, supplierId, file.name, file.status, applied, rows.length - applied, file.error ?? null, file.claimedAt, file.claimedAt],
  );
  for (const r of rows) {
    onWorkerDb(
      `INSERT INTO inbound_file_rows (file_id, row, line_id, action, result, message)
       SELECT id, ?, NULL, ?, ?, ? FROM inbound_files WHERE supplier_id = ? AND name = ?`,
      [r.row, r.action, r.result, r.message, supplierId, file.name],
    );
  }
}

/** The text of every cell of a column of the table inside `scope`, by its header. */
async function columnIn(scope: Locator, header: string): Promise<string[]> {
  const headers = await scope.locator("table thead th").allTextContents();
  const index = headers.indexOf(header);
  if (index < 0) throw new Error(`no column ${header}: ${headers.join(", ")}`);
  return scope.locator(`table tbody tr td:nth-child(${index + 1})`).allInnerTexts();
}

let shop: Shop;
let page: Page;

beforeAll(async () => {
  shop = await createShop();
  // A fixed zone and locale: the section shows when each file was read in the viewer's time.
  page = await newPage({ timezoneId: "Europe/Amsterdam", locale: "en-GB" });
  await signInShop(page, shop);
});
afterAll(closeBrowser);

const section = () => page.getByRole("region", { name: "Answer files", exact: true });

describe("the answer files of a file supplier", () => {
  it("says that no file was read yet, and names the folder it reads", async () => {
    const supplier = (await fileSupplier(shop, "Tuinhout", { directory: "answers" })).json;
    await page.goto(`/console/suppliers/${supplier.id}`);
    expect(await section().getByRole("heading", { level: 2 }).innerText()).toBe("Answer files");
    expect(await section().locator("p").allInnerTexts()).toEqual([
      "The files Tuinhout leaves in answers, read each minute; each row is applied as an answer through the supplier API. The latest 10.",
      "No answer files read yet.",
    ]);
    expect(await section().locator("table").count()).toBe(0);
    await expectAccessible(page);
  });

  it("has no section for a file supplier that leaves no answer files", async () => {
    const supplier = (await fileSupplier(shop, "Outbound only", undefined)).json;
    await page.goto(`/console/suppliers/${supplier.id}`);
    expect(await page.getByRole("heading", { name: "Supplier keys" }).isVisible()).toBe(true);
    expect(await section().count()).toBe(0);
  });

  it("shows each file read, newest first: when, its rows applied and refused, and each refused row with its reason", async () => {
    const created = await fileSupplier(shop, "Lampenlab", { directory: "out", archive_directory: "out/done" });
    expect(created.status).toBe(201);
    const id = created.json.id as number;
    seedAnswerFile(shop, id, { name: "broken.csv", status: "failed", claimedAt: "2026-11-20T08:01:00.000Z", error: "The file is not valid CSV: Invalid Closing Quote." }, []);
    seedAnswerFile(shop, id, { name: "tracking-0420.csv", status: "done", claimedAt: "2026-11-20T09:15:00.000Z" }, [
      { row: 1, action: "ship", result: "applied", message: null },
      { row: 2, action: "ship", result: "refused", message: "The tracking_number field is required when action is ship." },
    ]);
    // The API reads the same files: the seed is what the cron would have left.
    const listed = await api(shop, "GET", `/api/v1/suppliers/${id}/inbound-files`);
    expect(listed.json.data.map((f: { name: string; rows_applied: number; rows_refused: number }) => [f.name, f.rows_applied, f.rows_refused])).toEqual([
      ["tracking-0420.csv", 1, 1],
      ["broken.csv", 0, 0],
    ]);

    await page.goto(`/console/suppliers/${id}`);
    const answers = section();
    expect(await answers.getByRole("region", { name: "Answer files of Lampenlab, newest first" }).isVisible()).toBe(true);
    expect(await answers.locator("table thead th").allInnerTexts()).toEqual(["File", "Read", "Result", "Refused rows"]);
    expect(await columnIn(answers, "File")).toEqual(["tracking-0420.csv", "broken.csv"]);
    // In the viewer's zone (Amsterdam, UTC+1 in November), with UTC kept in the title.
    expect(await columnIn(answers, "Read")).toEqual(["20 Nov 2026, 10:15", "20 Nov 2026, 09:01"]);
    expect(await answers.locator("tbody time").evaluateAll((ts) => ts.map((t) => [t.getAttribute("datetime"), t.getAttribute("title")]))).toEqual([
      ["2026-11-20T09:15:00.000Z", "2026-11-20 09:15 UTC"],
      ["2026-11-20T08:01:00.000Z", "2026-11-20 08:01 UTC"],
    ]);
    expect(await columnIn(answers, "Result")).toEqual(["1 applied, 1 refused", "Failed The file is not valid CSV: Invalid Closing Quote."]);
    expect(await columnIn(answers, "Refused rows")).toEqual(["Row 2: The tracking_number field is required when action is ship.", "—"]);
    expect(await answers.locator("tbody tr").first().locator("li").allInnerTexts()).toEqual(["Row 2: The tracking_number field is required when action is ship."]);
    await screenshot(page, "supplier-answer-files");
    await expectAccessible(page);
  });
});
