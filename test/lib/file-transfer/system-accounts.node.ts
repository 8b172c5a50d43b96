// The system accounts the FTP and SFTP tests' servers log their users in with (useradd, usermod,
// chpasswd, userdel). `npm test` runs the workers and the browser projects side by side
// (scripts/test.mjs), and both start an sshd with a user of their own at the same moment: shadow's
// tools refuse at once ("cannot lock /etc/passwd; try again later") while another holds the lock,
// so a refused call is tried again, for a few seconds at most.
import { execFileSync } from "node:child_process";

const LOCKED = /cannot lock|try again later|unable to lock/i;

export function accountCommand(command: "useradd" | "usermod" | "chpasswd" | "userdel", args: string[], input?: string): string {
  for (let attempt = 1; ; attempt++) {
    try {
      return execFileSync(command, args, { encoding: "utf8", input, stdio: ["pipe", "pipe", "pipe"] });
    } catch (error) {
      const stderr = String((error as { stderr?: unknown }).stderr ?? "");
      if (!LOCKED.test(stderr) || attempt >= 50) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
    }
  }
}
