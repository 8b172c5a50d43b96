// An X12 supplier's page in a real browser, against the real sshd: its X12 settings shown while the
// format is X12, a bad ID refused beside its field (the API's 422) and a good save kept; its EDI files
// each way after the cron read its inbound folder (an 846 read and answered with our 997, an 855
// naming an order we never sent refused and answered with our 997 rejecting it), with a View of a
// file's segments one per line. Three page loads.
import { chownSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { api, closeBrowser, createShop, expectAccessible, fireCron, newPage, signInShop, until, type Shop } from "../browser/console";

const sftp = inject("sftp");
let shop: Shop;
let page: Page;

/** A folder of this file's own on the server (with in/), owned by the SFTP user as upload/ is. */
function serverFolder(name: string): string {
  const upload = join(sftp.root, "upload");
  const { uid, gid } = statSync(upload);
  for (const sub of ["", "/in"]) {
    mkdirSync(join(upload, name + sub), { recursive: true });
    chownSync(join(upload, name + sub), uid, gid);
  }
  return `upload/${name}`;
}

/** One interchange from the supplier (TUINHOUT) to us, as its system writes it. */
function supplierFile(setId: string, functionalId: string, control: number, segments: string[]): string {
  const isa13 = String(control).padStart(9, "0");
  return [
    `ISA*00*          *00*          *01*TUINHOUT       *ZZ*ORDERINTAKE    *261129*1200*U*00401*${isa13}*0*T*>`,
    `GS*${functionalId}*TUINHOUT*ORDERINTAKE*20261129*1200*${control}*X*004010`,
    `ST*${setId}*0001`,
    ...segments,
    `SE*${segments.length + 2}*0001`,
    `GE*1*${control}`,
    `IEA*1*${isa13}`,
  ]
    .map((s) => `${s}~\n`)
    .join("");
}

beforeAll(async () => {
  shop = await createShop();
  page = await newPage();
  await signInShop(page, shop);
});
afterAll(() => closeBrowser());

describe("an X12 supplier's page", () => {
  it("edits the X12 settings (a bad ID refused beside its field, a good save kept) and lists the EDI files each way with a View of the segments", async () => {
    const dir = serverFolder(`x12-console-${Date.now().toString(36)}`);
    const created = await api(shop, "POST", "/api/v1/suppliers", {
      name: "Tuinhout EDI",
      channel: "file",
      file_transfer: {
        protocol: "sftp",
        host: sftp.host,
        port: sftp.port,
        username: sftp.username,
        password: sftp.password,
        host_key_fingerprint: sftp.hostKeyFingerprint,
        directory: dir,
        format: "x12",
        inbound: { directory: `${dir}/in` },
        x12: { sender_id: "ORDERINTAKE", receiver_id: "TUINHOUT", receiver_qualifier: "01", usage: "T" },
      },
    });
    expect(created.status).toBe(201);
    const id = created.json.id as number;
    // The supplier's files, as its system leaves them: stock of an item we do not carry, and an 855 for an order we never sent.
    const inbox = join(sftp.root, dir, "in");
    writeFileSync(join(inbox, "846.x12"), supplierFile("846", "IB", 846, ["BIA*00*SI*STOCK1*20261129", "LIN**VP*NOT-OURS", "QTY*33*7*EA"]));
    writeFileSync(join(inbox, "855.x12"), supplierFile("855", "PR", 855, ["BAK*00*AC*NEVER-SENT*20261129", "PO1*1*1*EA", "ACK*IA*1*EA", "CTT*1"]));
    await fireCron();
    await until(async () => {
      const files = (await api(shop, "GET", `/api/v1/suppliers/${id}/inbound-files`)).json.data as { status: string }[];
      return files.length === 2 && files.every((f) => f.status !== "processing");
    }, "the inbound files read");

    await page.goto(`/console/suppliers/${id}`);
    // The X12 fields, with the stored settings and what each fills.
    expect(await page.getByLabel("Our EDI ID", { exact: true }).inputValue()).toBe("ORDERINTAKE");
    expect(await page.getByLabel("Partner's ID qualifier", { exact: true }).inputValue()).toBe("01");
    expect(await page.getByLabel("Usage", { exact: true }).inputValue()).toBe("T");
    expect(await page.locator("#field-ft_x12_sender_id-hint").innerText()).toBe("ISA06: our ID in the supplier's EDI (required)");
    expect(await page.locator('input[name="ft_x12_sends_back"]:checked').count()).toBe(5);
    // Out of sight while another format is chosen.
    await page.getByLabel("File format", { exact: true }).selectOption("csv");
    expect(await page.getByLabel("Our EDI ID", { exact: true }).isVisible()).toBe(false);
    await page.getByLabel("File format", { exact: true }).selectOption("x12");
    expect(await page.getByLabel("Our EDI ID", { exact: true }).isVisible()).toBe(true);

    // The EDI files: ours (the 997 answering the 846, the 997 rejecting the 855) and the supplier's.
    const sent = page.getByRole("region", { name: "X12 files sent to Tuinhout EDI, newest first" });
    const received = page.getByRole("region", { name: "X12 files received from Tuinhout EDI, newest first" });
    const sentText = await sent.innerText();
    expect(sentText).toContain("997 acknowledgement");
    expect(sentText).toContain("rejects group 855 of interchange 000000855 (file 855.x12): The 855 names order NEVER-SENT, which we never sent to this supplier: nothing of the file is applied.");
    const receivedText = await received.innerText();
    expect(receivedText).toContain("Applied stock of 1 items read: 0 products changed, 1 not in the supplier's catalogue");
    expect(receivedText).toContain("Failed The 855 names order NEVER-SENT, which we never sent to this supplier: nothing of the file is applied.");
    // View: the 846's segments one per line.
    const view = received.locator("details", { hasText: "the segments of 846.x12" });
    expect(await view.locator("pre").isVisible()).toBe(false);
    await view.locator("summary").click();
    expect((await view.locator("pre").innerText()).split("\n").slice(2)).toEqual(["ST*846*0001", "BIA*00*SI*STOCK1*20261129", "LIN**VP*NOT-OURS", "QTY*33*7*EA", "SE*5*0001", "GE*1*846", "IEA*1*000000846"]);
    await expectAccessible(page);

    // An ID one past ISA's 15 characters: the API's 422 beside the field, nothing stored.
    await page.getByLabel("Partner's EDI ID", { exact: true }).fill("T".repeat(16));
    await page.getByLabel("Usage", { exact: true }).selectOption("P");
    await page.getByRole("button", { name: "Save supplier" }).click();
    await page.waitForLoadState();
    expect(await page.locator("#field-ft_x12_receiver_id-error").innerText()).toBe("The Partner's EDI ID field must not be greater than 15 characters.");
    expect(await page.getByLabel("Partner's EDI ID", { exact: true }).inputValue()).toBe("T".repeat(16));
    await expectAccessible(page);
    expect((await api(shop, "GET", `/api/v1/suppliers/${id}`)).json.file_transfer.x12).toMatchObject({ receiver_id: "TUINHOUT", usage: "T" });

    // 15 is taken: saved through the supplier's service, kept, shown back.
    await page.getByLabel("Partner's EDI ID", { exact: true }).fill("T".repeat(15));
    await page.getByRole("button", { name: "Save supplier" }).click();
    await page.waitForURL(new RegExp(`/console/suppliers/${id}$`));
    expect(await page.locator(".flash").innerText()).toBe("Supplier Tuinhout EDI saved.");
    expect((await api(shop, "GET", `/api/v1/suppliers/${id}`)).json.file_transfer.x12).toMatchObject({ receiver_id: "T".repeat(15), receiver_qualifier: "01", usage: "P", sends_back: ["997", "855", "856", "810", "846"] });
    expect(await page.getByLabel("Partner's EDI ID", { exact: true }).inputValue()).toBe("T".repeat(15));
  });
});
