// A session on the real sshd of the SFTP tests (test/lib/file-transfer/sftp-server.global.ts) as
// the supplier would have it: to put a file there, or to read what we wrote.
import { inject } from "vitest";
import { connectSftp } from "../../src/lib/file-transfer/sftp";
import type { FileTransferSession } from "../../src/lib/file-transfer/transfer";

export async function onSftpServer<T>(work: (s: FileTransferSession) => Promise<T>): Promise<T> {
  const server = inject("sftp");
  const s = await connectSftp({
    protocol: "sftp",
    host: server.host,
    port: server.port,
    username: server.username,
    password: server.password,
    hostKeyFingerprint: server.hostKeyFingerprint,
    timeoutMs: 20_000,
  });
  try {
    return await work(s);
  } finally {
    await s.close();
  }
}
