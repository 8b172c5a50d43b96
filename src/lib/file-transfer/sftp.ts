// SFTP (version 3, draft-ietf-secsh-filexfer-02, as OpenSSH and nearly every server speak it) over
// our SSH client (./ssh.ts): the FileTransferConnector for protocol "sftp". Requests are numbered
// and may be in flight together (uploads keep several writes going); answers are matched by id.
import { SshConnection } from "./ssh";
import { readAttrs, readNames, readStatus, readVersion, SftpFramer, type Attrs, type SftpPacket } from "./sftp-wire";
import { concat, shown, SshProtocolError, Writer } from "./ssh-wire";
import { FileTransferError, temporaryName, type FileTransferConnector, type FileTransferErrorKind, type FileTransferSession, type RemoteFile } from "./transfer";

// Packet types (filexfer-02 §3) and status codes (§7).
const FXP = {
  INIT: 1,
  VERSION: 2,
  OPEN: 3,
  CLOSE: 4,
  READ: 5,
  WRITE: 6,
  FSTAT: 8,
  OPENDIR: 11,
  READDIR: 12,
  REMOVE: 13,
  STAT: 17,
  RENAME: 18,
  STATUS: 101,
  HANDLE: 102,
  DATA: 103,
  NAME: 104,
  ATTRS: 105,
  EXTENDED: 200,
} as const;
const FX = { OK: 0, EOF: 1, NO_SUCH_FILE: 2, PERMISSION_DENIED: 3, FAILURE: 4 } as const;
// Codes of later drafts (filexfer-13 §9.1) that some servers send on a v3 session too.
const FX_NO_SPACE_ON_FILESYSTEM = 14;
const FX_QUOTA_EXCEEDED = 15;
const OPEN_FLAGS = { READ: 0x01, WRITE: 0x02, CREAT: 0x08, TRUNC: 0x10, EXCL: 0x20 } as const;

/** Bytes per READ and WRITE request (OpenSSH's sftp client uses 32 KiB), and requests sent at once. */
const CHUNK = 32 * 1024;
const WRITES_IN_FLIGHT = 16;
const READS_IN_FLIGHT = 16;

const isDirectory = (attrs: Attrs) => attrs.permissions !== null && (attrs.permissions & 0o170000) === 0o040000;

const remoteFile = (name: string, attrs: Attrs): RemoteFile => ({
  name,
  size: attrs.size ?? 0,
  modifiedAt: attrs.mtime === null ? null : new Date(attrs.mtime * 1000).toISOString(),
  isDirectory: isDirectory(attrs),
});

const splitPath = (path: string) => {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? { directory: "", name: path } : { directory: path.slice(0, slash + 1), name: path.slice(slash + 1) };
};

type Answer = SftpPacket;
type Pending = { resolve: (answer: Answer) => void; reject: (error: unknown) => void };

class SftpSession implements FileTransferSession {
  private nextId = 1;
  private pending = new Map<number, Pending>();
  private framer = new SftpFramer();
  private versionWaiter: ((r: Answer) => void) | null = null;
  extensions = new Set<string>();

  constructor(private readonly ssh: SshConnection) {
    ssh.onData = (data) => this.receive(data);
  }

  /** filexfer-02 §4: INIT with our version, the server answers VERSION and its extensions. */
  async init() {
    const version = new Promise<Answer>((resolve) => (this.versionWaiter = resolve));
    await this.ssh.send(this.frame(new Writer().byte(FXP.INIT).u32(3).done()));
    const r = await this.ssh.guard(version);
    const { version: v, extensions } = this.parse("starting SFTP", () => readVersion(r));
    if (v < 3) throw new FileTransferError("protocol", `the server speaks SFTP version ${v}; we need 3`);
    for (const name of extensions) this.extensions.add(name);
  }

  /**
   * Reads a reply's fields with `read`. A reply that cannot be read (a length or count past its end)
   * ends the session: whatever the server does next cannot be trusted.
   */
  private parse<T>(what: string, read: () => T): T {
    try {
      return read();
    } catch (error) {
      if (!(error instanceof SshProtocolError)) throw error;
      const failure = new FileTransferError("protocol", `${this.ssh.where} sent an answer to ${what} that cannot be read (${error.message}); the session is ended`);
      this.ssh.fail(failure);
      throw failure;
    }
  }

  private frame(body: Uint8Array) {
    return concat([new Writer().u32(body.length).done(), body]);
  }

  /** Hands each SFTP packet of the channel's byte stream to the request it answers (by id). */
  private receive(data: Uint8Array) {
    let packets: Answer[];
    try {
      packets = this.framer.push(data);
    } catch (error) {
      if (!(error instanceof SshProtocolError)) throw error;
      return this.ssh.fail(new FileTransferError("protocol", `${this.ssh.where} ${error.message}`));
    }
    for (const r of packets) {
      if (r.type === FXP.VERSION) {
        this.versionWaiter?.(r);
        continue;
      }
      const id = this.parse("a request", () => r.u32());
      const waiter = this.pending.get(id);
      this.pending.delete(id);
      waiter?.resolve(r);
    }
  }

  /**
   * Sends one request and waits for its answer. Once the request went out, a failure (the session's
   * time box, a dropped connection) is `unclear`: the server may have done it.
   */
  private async request(what: string, type: number, body: (w: Writer) => Writer): Promise<Answer> {
    if (this.ssh.failed) throw this.ssh.failed;
    const id = this.nextId++;
    const answer = new Promise<Answer>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    try {
      this.ssh.setStep(`waiting for the answer to ${what}`);
      await this.ssh.guard(this.ssh.send(this.frame(body(new Writer().byte(type).u32(id)).done())));
      return await this.ssh.guard(answer);
    } catch (error) {
      this.pending.delete(id);
      if (error instanceof FileTransferError && !error.unclear) throw new FileTransferError(error.kind, `${error.message}; ${what} may or may not have happened`, true);
      throw error;
    }
  }

  /** A STATUS answer: OK passes, anything else is a FileTransferError in words. */
  private status(r: Answer, what: string, writing = false): void {
    if (r.type !== FXP.STATUS) throw new FileTransferError("protocol", `the server answered ${what} with packet ${r.type}`);
    const { code, message } = this.parse(what, () => readStatus(r));
    if (code === FX.OK) return;
    throw statusError(code, message, what, writing);
  }

  private async handle(what: string, type: number, body: (w: Writer) => Writer, writing = false): Promise<Uint8Array> {
    const r = await this.request(what, type, body);
    if (r.type === FXP.HANDLE) return this.parse(what, () => r.bytesField());
    this.status(r, what, writing);
    throw new FileTransferError("protocol", `the server answered ${what} with neither a handle nor an error`);
  }

  async list(directory: string): Promise<RemoteFile[]> {
    const what = `listing ${directory}`;
    const handle = await this.handle(what, FXP.OPENDIR, (w) => w.string(directory));
    const files: RemoteFile[] = [];
    try {
      for (;;) {
        const r = await this.request(what, FXP.READDIR, (w) => w.string(handle));
        if (r.type === FXP.STATUS) {
          const { code, message } = this.parse(what, () => readStatus(r));
          if (code === FX.EOF) break;
          throw statusError(code, message, what, false);
        }
        if (r.type !== FXP.NAME) throw new FileTransferError("protocol", `the server answered ${what} with packet ${r.type}`);
        for (const { name, attrs } of this.parse(what, () => readNames(r))) {
          if (name !== "." && name !== "..") files.push(remoteFile(name, attrs));
        }
      }
    } finally {
      await this.closeHandle(handle, what).catch(() => undefined);
    }
    return files.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async read(path: string, maxBytes: number): Promise<Uint8Array> {
    const what = `reading ${path}`;
    const tooLarge = () => new FileTransferError("protocol", `${path} is larger than the ${maxBytes} bytes we read at most`);
    const handle = await this.handle(what, FXP.OPEN, (w) => w.string(path).u32(OPEN_FLAGS.READ).u32(0));
    try {
      // The size tells how many reads to send at once, and refuses a file over the limit before
      // any of it is read. The reads still go on to the end of the file, which may have grown.
      const attrs = await this.request(what, FXP.FSTAT, (w) => w.string(handle));
      const size = attrs.type === FXP.ATTRS ? this.parse(what, () => readAttrs(attrs)).size : null;
      if (size !== null && size > maxBytes) throw tooLarge();
      const parts: Uint8Array[] = [];
      let offset = 0;
      for (let eof = false; !eof; ) {
        // A batch of reads at consecutive offsets, one round trip. Answers count in order, up to the
        // end of the file or a short read (then the next batch starts where that one ended).
        const count = Math.min(READS_IN_FLIGHT, size === null || offset >= size ? 1 : Math.ceil((size - offset) / CHUNK) + 1);
        const from = offset;
        const batch = Array.from({ length: count }, (_, i) => this.request(what, FXP.READ, (w) => w.string(handle).u64(from + i * CHUNK).u32(CHUNK)));
        const answers = await Promise.all(batch);
        for (const [i, r] of answers.entries()) {
          // After a short read the later answers start past a gap: the next batch reads from here.
          if (from + i * CHUNK !== offset) break;
          if (r.type === FXP.STATUS) {
            const { code, message } = this.parse(what, () => readStatus(r));
            if (code === FX.EOF) eof = true;
            else throw statusError(code, message, what, false);
            break;
          }
          if (r.type !== FXP.DATA) throw new FileTransferError("protocol", `the server answered ${what} with packet ${r.type}`);
          const data = this.parse(what, () => r.bytesField());
          if (data.length === 0) {
            eof = true;
            break;
          }
          offset += data.length;
          if (offset > maxBytes) throw tooLarge();
          parts.push(data.slice());
        }
      }
      return concat(parts);
    } finally {
      await this.closeHandle(handle, what).catch(() => undefined);
    }
  }

  async writeAtomic(path: string, bytes: Uint8Array): Promise<void> {
    const { directory, name } = splitPath(path);
    // Same directory, so the rename is within one file system; a leading dot hides it from most
    // listings. One name per file, opened truncating (not exclusive): what an attempt killed
    // mid-way left behind is overwritten by the next one and renamed away, never orphaned.
    const temporary = temporaryName(directory, name);
    const what = `writing ${temporary} (for ${path})`;
    const handle = await this.handle(what, FXP.OPEN, (w) => w.string(temporary).u32(OPEN_FLAGS.WRITE | OPEN_FLAGS.CREAT | OPEN_FLAGS.TRUNC).u32(0), true);
    try {
      // Several writes in flight: one round trip per chunk would make a slow link slower still.
      const inFlight = new Set<Promise<void>>();
      for (let offset = 0; offset < bytes.length; offset += CHUNK) {
        const chunk = bytes.subarray(offset, offset + CHUNK);
        const at = offset;
        const write: Promise<void> = this.request(what, FXP.WRITE, (w) => w.string(handle).u64(at).string(chunk)).then((r) => this.status(r, what, true));
        inFlight.add(write);
        void write.finally(() => inFlight.delete(write)).catch(() => undefined);
        if (inFlight.size >= WRITES_IN_FLIGHT) await Promise.race(inFlight);
      }
      await Promise.all(inFlight);
      // The server may report a full disk only when the file is closed (its buffers are flushed then).
      await this.closeHandle(handle, what, true);
    } catch (error) {
      await this.closeHandle(handle, what).catch(() => undefined);
      await this.remove(temporary).catch(() => undefined);
      throw error;
    }
    try {
      await this.replace(temporary, path);
    } catch (error) {
      await this.remove(temporary).catch(() => undefined);
      throw error;
    }
  }

  /** Renames over an existing file in one step: OpenSSH's posix-rename (a rename(2) on the server). */
  private async replace(from: string, to: string) {
    const what = `renaming ${from} to ${to}`;
    if (this.extensions.has("posix-rename@openssh.com")) {
      const r = await this.request(what, FXP.EXTENDED, (w) => w.string("posix-rename@openssh.com").string(from).string(to));
      return this.status(r, what);
    }
    // SFTP v3's RENAME refuses an existing target: without posix-rename the old file is removed first,
    // so a reader may briefly find no file, but never half of one.
    const existing = await this.stat(to);
    if (existing && !existing.isDirectory) await this.remove(to);
    const r = await this.request(what, FXP.RENAME, (w) => w.string(from).string(to));
    this.status(r, what);
  }

  async rename(from: string, to: string): Promise<void> {
    const what = `renaming ${from} to ${to}`;
    const r = await this.request(what, FXP.RENAME, (w) => w.string(from).string(to));
    this.status(r, what);
  }

  async remove(path: string): Promise<void> {
    const what = `removing ${path}`;
    const r = await this.request(what, FXP.REMOVE, (w) => w.string(path));
    this.status(r, what);
  }

  async stat(path: string): Promise<RemoteFile | null> {
    const what = `reading the attributes of ${path}`;
    const r = await this.request(what, FXP.STAT, (w) => w.string(path));
    if (r.type === FXP.ATTRS) return remoteFile(splitPath(path).name, this.parse(what, () => readAttrs(r)));
    if (r.type === FXP.STATUS) {
      const { code, message } = this.parse(what, () => readStatus(r));
      if (code === FX.NO_SUCH_FILE) return null;
      throw statusError(code, message, what, false);
    }
    throw new FileTransferError("protocol", `the server answered ${what} with packet ${r.type}`);
  }

  private async closeHandle(handle: Uint8Array, what: string, writing = false) {
    const r = await this.request(what, FXP.CLOSE, (w) => w.string(handle));
    this.status(r, what, writing);
  }

  async close(): Promise<void> {
    for (const waiter of this.pending.values()) waiter.reject(new FileTransferError("protocol", "the session was closed"));
    this.pending.clear();
    await this.ssh.end();
  }
}

/**
 * A STATUS code in words. SFTP v3 has no code for a full disk: OpenSSH's server answers FAILURE
 * ("Failure") for ENOSPC, EDQUOT and every other error it has no code for, so a FAILURE while
 * writing is reported as disk_full, saying that the protocol cannot tell more.
 */
function statusError(code: number, serverMessage: string, what: string, writing: boolean): FileTransferError {
  const said = serverMessage ? ` (the server said: ${shown(serverMessage, 200)})` : "";
  const kind = (k: FileTransferErrorKind, text: string) => new FileTransferError(k, `${text}${said}`);
  if (code === FX.NO_SUCH_FILE) return kind("not_found", `${what} failed: no such file or directory`);
  if (code === FX.PERMISSION_DENIED) return kind("permission_denied", `${what} failed: permission denied`);
  if (code === FX_NO_SPACE_ON_FILESYSTEM || code === FX_QUOTA_EXCEEDED) return kind("disk_full", `${what} failed: the server's disk or quota is full`);
  if (code === FX.FAILURE && writing) {
    return kind("disk_full", `${what} failed: the server could not write the file, most often a full disk or quota (SFTP v3 says only "failure")`);
  }
  if (code === FX.FAILURE) return kind("protocol", `${what} failed: the server gave no reason (SFTP "failure")${what.startsWith("renaming") ? "; is there a file of that name already?" : ""}`);
  return kind("protocol", `${what} failed: SFTP status ${code}`);
}

/** The connector for protocol "sftp": one SSH connection, one SFTP channel, the whole session within settings.timeoutMs. */
export const connectSftp: FileTransferConnector = async (settings) => {
  // No pinned key: the connection learns the server's key and ends before authenticating (ssh.ts),
  // the error carrying the key for a person to compare and pin.
  const ssh = await SshConnection.open(
    {
      host: settings.host,
      port: settings.port,
      username: settings.username,
      password: settings.password,
      privateKey: settings.privateKey,
      hostKeyFingerprint: settings.hostKeyFingerprint ?? "",
      deadline: Date.now() + settings.timeoutMs,
      timeoutMs: settings.timeoutMs,
    },
    "sftp",
  );
  const session = new SftpSession(ssh);
  try {
    await session.init();
  } catch (error) {
    await session.close();
    throw error;
  }
  return session;
};
