// Folders of their own for the file channel's tests on the SFTP server that
// test/lib/file-transfer/sftp-server.global.ts starts (it must run first): each test's supplier
// reads and writes its own folder, so a cron run for one never touches another's files (upload/fc-30:
// test/catalogue/pull.sftp.test.ts's feed; fc-20 to fc-24: file-channel.encoding.test.ts). Our SFTP
// client makes no folders (suppliers' servers have theirs), so they are made here, owned like upload/.
import { chownSync, mkdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { TestProject } from "vitest/node";

export const FILE_CHANNEL_FOLDERS = 30;
/** upload/edi-N: the X12 tests' (test/forwarding/x12*.test.ts). */
export const EDI_FOLDERS = 10;
/** upload/ret-N: the return answer files' tests (test/returns/answer-files.test.ts). */
export const RETURN_FOLDERS = 3;

export default function setup(project: TestProject) {
  const { root } = project.getProvidedContext().sftp;
  const upload = join(root, "upload");
  const { uid, gid } = statSync(upload);
  const folders = [...Array.from({ length: FILE_CHANNEL_FOLDERS }, (_, i) => `fc-${i + 1}`), ...Array.from({ length: EDI_FOLDERS }, (_, i) => `edi-${i + 1}`), ...Array.from({ length: RETURN_FOLDERS }, (_, i) => `ret-${i + 1}`)];
  for (const folder of folders) {
    for (const sub of ["", "/in", "/in/done"]) {
      const dir = join(upload, `${folder}${sub}`);
      mkdirSync(dir, { recursive: true });
      chownSync(dir, uid, gid);
    }
  }
}
