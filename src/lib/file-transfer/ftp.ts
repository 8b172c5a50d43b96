// FTP and explicit FTPS (AUTH TLS, RFC 4217) over the Workers runtime's TCP sockets (connect() from
// cloudflare:sockets): passive mode only (EPSV, else PASV), binary (TYPE I), a data connection per
// transfer, in TLS too for FTPS (PROT P). Written here because no maintained FTP library runs in
// workerd with TLS: basic-ftp works for plain FTP under nodejs_compat, but its AUTH TLS upgrade
// (tls.connect({socket}) over a node:net socket) throws inside workerd's node:tls (docs/file-transfer.md).
import { connect } from "cloudflare:sockets";
import { FtpReplyError, oneLine, parseEpsv, parseFacts, parseFeatures, parseListing, parseMdtm, parsePasv, parsePwd, parseSize, ReplyReader, type Reply } from "./ftp-parse";
import { FileTransferError, temporaryName, refuseUnreachable, type FileTransferConnector, type FileTransferErrorKind, type FileTransferSession, type FileTransferSettings, type RemoteFile } from "./transfer";

/** Opens a TCP socket: cloudflare:sockets' connect(), or a service binding's connect() (a network with other trusted CAs). */
export type SocketOpener = (address: SocketAddress, options: SocketOptions) => Socket;

const CHUNK_BYTES = 64 * 1024;
const encoder = new TextEncoder();

function isIpLiteral(host: string): boolean {
  return /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(":");
}

function splitPath(path: string): { directory: string; name: string } {
  const slash = path.lastIndexOf("/");
  return slash < 0 ? { directory: "", name: path } : { directory: path.slice(0, slash + 1), name: path.slice(slash + 1) };
}

class FtpSession implements FileTransferSession {
  private socket: Socket | null = null;
  private reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  private writer: WritableStreamDefaultWriter<Uint8Array> | null = null;
  private data: Socket | null = null;
  private replies = new ReplyReader();
  /** The command that went out and whose answer has not come (an error then leaves its outcome unclear). */
  private pending: string | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private expired: Promise<never>;
  private timedOut = false;
  private closed = false;
  private broken: FileTransferError | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private home = "/";
  private mlst = false;
  private epsv = true;
  private readonly server: string;
  private readonly tls: boolean;

  constructor(
    private readonly settings: FileTransferSettings,
    private readonly open: SocketOpener,
  ) {
    this.server = `the FTP server ${settings.host}:${settings.port}`;
    this.tls = settings.protocol === "ftps";
    this.expired = new Promise<never>((_, reject) => {
      this.timer = setTimeout(() => {
        this.timedOut = true;
        reject(this.timeout());
        this.shutdown();
      }, settings.timeoutMs);
    });
    this.expired.catch(() => {});
  }

  private timeout(): FileTransferError {
    const waiting = this.pending ? ` (waiting for the answer to ${this.pending})` : "";
    return new FileTransferError("timeout", `${this.server} did not finish within ${this.settings.timeoutMs} ms${waiting}: the session was ended`, this.pending !== null);
  }

  /** The session cannot go on (a broken connection, a reply that is not FTP): later calls say why. */
  private fail(failure: FileTransferError): FileTransferError {
    this.broken = failure;
    this.shutdown();
    return failure;
  }

  /** Runs one operation at a time, within the session's time box. */
  private run<T>(operation: () => Promise<T>): Promise<T> {
    const next = this.queue.then(async () => {
      if (this.broken) throw this.broken;
      if (this.timedOut) throw this.timeout();
      if (this.closed) throw new FileTransferError("protocol", `the session with ${this.server} is closed`);
      try {
        return await Promise.race([operation(), this.expired]);
      } catch (error) {
        throw this.explain(error);
      }
    });
    this.queue = next.catch(() => {});
    return next;
  }

  /** Waits for one step within the time box. */
  private within<T>(promise: Promise<T>): Promise<T> {
    return Promise.race([promise, this.expired]);
  }

  private explain(error: unknown): FileTransferError {
    if (error instanceof FileTransferError) return error;
    if (this.timedOut) return this.timeout();
    const after = this.pending ? ` after ${this.pending} went out` : "";
    return this.fail(new FileTransferError("protocol", `the connection to ${this.server} broke${after}: ${error instanceof Error ? error.message : String(error)}`, this.pending !== null));
  }

  async connect(): Promise<void> {
    try {
      await this.run(() => this.login());
    } catch (error) {
      this.shutdown();
      throw error;
    }
  }

  private async login(): Promise<void> {
    const { host, port } = this.settings;
    refuseUnreachable(host);
    const socket = this.open({ hostname: host, port }, { secureTransport: this.tls ? "starttls" : "off", allowHalfOpen: false });
    this.socket = socket;
    try {
      refuseUnreachable(host, await this.within(socket.opened));
    } catch (error) {
      if (error instanceof FileTransferError) throw error;
      // The runtime answers a name that does not resolve and a port that refuses alike.
      if (isIpLiteral(host)) throw new FileTransferError("refused", `${this.server} refused the connection (nothing accepts connections on port ${port})`);
      throw new FileTransferError("refused", `could not connect to ${this.server}: the name ${host} does not resolve, or nothing accepts connections on port ${port} (the Workers runtime does not tell the two apart)`);
    }
    this.attach(socket);
    let greeting = await this.reply();
    if (greeting.code === 120) greeting = await this.reply();
    if (greeting.code !== 220) throw this.refusal(greeting, "the greeting");
    if (this.tls) await this.startTls();
    const user = await this.command(`USER ${this.settings.username}`);
    if (user.code === 331) {
      const pass = await this.command(`PASS ${this.settings.password ?? ""}`, "PASS ****");
      if (pass.code !== 230 && pass.code !== 202) throw this.refusal(pass, "the login");
    } else if (user.code !== 230) throw this.refusal(user, "the login");
    await this.expect("TYPE I", [200]);
    this.mlst = parseFeatures(await this.command("FEAT")).has("MLST");
    this.home = parsePwd(await this.command("PWD")) ?? this.home;
  }

  private async startTls(): Promise<void> {
    const auth = await this.command("AUTH TLS");
    if (auth.code !== 234) throw new FileTransferError("tls", `${this.server} does not offer explicit TLS (AUTH TLS answered ${auth.text})`);
    this.reader?.releaseLock();
    this.writer?.releaseLock();
    const secure = this.socket!.startTls();
    this.socket = secure;
    try {
      await this.within(secure.opened);
    } catch (error) {
      if (error instanceof FileTransferError) throw error;
      throw new FileTransferError("tls", `the TLS handshake with ${this.server} failed: its certificate is not trusted for ${this.settings.host}, or no TLS version and cipher are common to both (${error instanceof Error ? error.message : String(error)})`);
    }
    this.attach(secure);
    await this.expect("PBSZ 0", [200]);
    await this.expect("PROT P", [200]);
  }

  private attach(socket: Socket): void {
    this.reader = socket.readable.getReader() as ReadableStreamDefaultReader<Uint8Array>;
    this.writer = socket.writable.getWriter() as WritableStreamDefaultWriter<Uint8Array>;
  }

  /** The next complete reply on the control connection (multi-line replies joined with \n). */
  private async reply(): Promise<Reply> {
    for (;;) {
      const reply = this.parsed(() => this.replies.take());
      if (reply) {
        this.pending = null;
        return reply;
      }
      const { value, done } = await this.within(this.reader!.read());
      if (done) throw this.fail(new FileTransferError("protocol", `${this.server} closed the connection${this.pending ? ` without answering ${this.pending}` : ""}`, this.pending !== null));
      this.replies.push(value);
    }
  }

  /** What a parser read from a reply; a reply it cannot read ends the session, in words. */
  private parsed<T>(parse: () => T): T {
    try {
      return parse();
    } catch (error) {
      if (!(error instanceof FtpReplyError)) throw error;
      throw this.fail(new FileTransferError("protocol", `${this.server} ${error.message}`, this.pending !== null));
    }
  }

  private async command(line: string, shown = line): Promise<Reply> {
    if (/[\r\n]/.test(line)) throw new FileTransferError("protocol", `a name sent to ${this.server} may not contain a line break`);
    this.pending = shown;
    await this.within(this.writer!.write(encoder.encode(`${line}\r\n`)));
    return this.reply();
  }

  private async expect(line: string, codes: number[]): Promise<Reply> {
    const reply = await this.command(line);
    if (!codes.includes(reply.code)) throw this.refusal(reply, line);
    return reply;
  }

  /** A negative reply, in words, as the kind a caller can act on. */
  private refusal(reply: Reply, what: string, kind?: FileTransferErrorKind): FileTransferError {
    const said = oneLine(reply.text);
    if (kind) return new FileTransferError(kind, `${this.server} refused ${what}: ${kind === "not_found" ? "no such file or directory" : "permission denied"} (${said})`);
    if (reply.code === 530) return new FileTransferError("auth", `${this.server} refused the login of ${this.settings.username}: authentication failed (${said})`);
    if (reply.code === 452 || reply.code === 552) return new FileTransferError("disk_full", `${this.server} refused ${what}: its disk is full or the quota is used up (${said})`);
    // RFC 4217's 522: the server wants TLS otherwise on the data connection (a resumed session, say).
    if (reply.code === 522) return new FileTransferError("tls", `${this.server} refused ${what}: its TLS demands on the data connection are not met (${said})`);
    // 451 is any local error: vsftpd answers a full disk so ("Failure writing to local file.").
    if (reply.code === 451) return new FileTransferError("protocol", `${this.server} could not complete ${what}: it failed on its side, a full disk being one cause (${said})`);
    if (reply.code === 553 || reply.code === 550) return new FileTransferError("permission_denied", `${this.server} refused ${what}: permission denied (${said})`);
    return new FileTransferError("protocol", `${this.server} refused ${what} (${said})`);
  }

  /** 550 says "no" without saying why: it is not_found when nothing is there, else permission_denied. */
  private async refusalAbout(reply: Reply, what: string, path: string): Promise<FileTransferError> {
    if (reply.code !== 550) return this.refusal(reply, what);
    return this.refusal(reply, what, (await this.statPath(path)) ? "permission_denied" : "not_found");
  }

  /**
   * A passive data connection (EPSV, else PASV) to the control connection's host, and `line` (the
   * transfer command) sent over the control connection. The connection is awaited only after the
   * server's 150: with PROT P it starts with a TLS handshake the server takes up only once it has
   * the command.
   *
   * The address a PASV answer names is checked, then never connected to: the data connection goes
   * to the host we were given, as curl (`--ftp-skip-pasv-ip`, its default) and FileZilla do. Behind
   * NAT that address is often a private one, and a hostile server could name any other (the cloud's
   * metadata address, a host inside the network) to make us connect there.
   */
  private async transfer(line: string, refused: (reply: Reply) => Promise<FileTransferError>): Promise<Socket> {
    let port: number | null = null;
    let named: string | null = null;
    if (this.epsv) {
      const reply = await this.command("EPSV");
      if (reply.code === 229) port = this.parsed(() => parseEpsv(reply));
      else this.epsv = false;
    }
    if (port === null) {
      const reply = await this.command("PASV");
      if (reply.code !== 227) throw this.refusal(reply, "passive mode (PASV)");
      const pasv = this.parsed(() => parsePasv(reply));
      port = pasv.port;
      if (pasv.host !== this.settings.host) named = pasv.host;
    }
    const data = this.open({ hostname: this.settings.host, port }, { secureTransport: this.tls ? "on" : "off", allowHalfOpen: false });
    this.data = data;
    const opened = data.opened.then(
      () => null,
      (error: unknown) => error,
    );
    const start = await this.command(line);
    if (start.code !== 150 && start.code !== 125) {
      this.closeData();
      // A 425 is the server's word for a data connection it could not get.
      throw await refused(start);
    }
    const error = await this.within(opened);
    if (error) {
      this.pending = line;
      const elsewhere = named ? ` (its PASV answer named ${named}, which we do not connect to: the data connection goes to ${this.settings.host})` : "";
      throw new FileTransferError(this.tls ? "tls" : "refused", `the data connection to ${this.server} on port ${port} failed${this.tls ? " (its TLS handshake)" : ""}${elsewhere}: ${error instanceof Error ? error.message : String(error)}`, true);
    }
    return data;
  }

  private closeData(): void {
    this.data?.close().catch(() => {});
    this.data = null;
  }

  /** Sends `line` (RETR, LIST, MLSD) and reads the whole answer from a data connection. */
  private async download(line: string, what: string, path: string, maxBytes: number): Promise<Uint8Array> {
    const data = await this.transfer(line, (reply) => this.refusalAbout(reply, what, path));
    try {
      const reader = data.readable.getReader() as ReadableStreamDefaultReader<Uint8Array>;
      const chunks: Uint8Array[] = [];
      let total = 0;
      for (;;) {
        const { value, done } = await this.within(reader.read());
        if (done) break;
        total += value.byteLength;
        if (total > maxBytes) {
          // The server is still sending: the session cannot go on cleanly.
          throw this.fail(new FileTransferError("protocol", `${path} on ${this.server} is larger than the limit of ${maxBytes} bytes`));
        }
        chunks.push(value);
      }
      this.pending = line;
      const end = await this.reply();
      if (end.code !== 226 && end.code !== 250) throw this.refusal(end, what);
      const bytes = new Uint8Array(total);
      let offset = 0;
      for (const chunk of chunks) {
        bytes.set(chunk, offset);
        offset += chunk.byteLength;
      }
      return bytes;
    } finally {
      this.closeData();
    }
  }

  private async upload(path: string, bytes: Uint8Array): Promise<void> {
    const data = await this.transfer(`STOR ${path}`, async (reply) => this.refusal(reply, `the upload of ${path}`));
    try {
      this.pending = `STOR ${path}`;
      const writer = data.writable.getWriter();
      let broke: unknown = null;
      try {
        for (let offset = 0; offset < bytes.byteLength; offset += CHUNK_BYTES) await this.within(writer.write(bytes.subarray(offset, offset + CHUNK_BYTES)));
        await this.within(writer.close());
      } catch (error) {
        if (error instanceof FileTransferError) throw error;
        // The server stopped taking the bytes (a full disk, say): its reply says why.
        broke = error;
      }
      const end = await this.reply();
      if (end.code !== 226 && end.code !== 250) throw this.refusal(end, `the upload of ${path}`);
      if (broke) throw this.explain(broke);
    } finally {
      this.closeData();
    }
  }

  /** CWD into `directory` (relative to the login directory or absolute); false when the server says no. */
  private async enter(directory: string): Promise<boolean> {
    const reply = await this.command(`CWD ${directory}`);
    return reply.code === 250 || reply.code === 200;
  }

  private async leave(): Promise<void> {
    await this.expect(`CWD ${this.home}`, [250, 200]);
  }

  /** The file or directory at `path`, or null (MLST where offered, else SIZE and MDTM, else CWD). */
  private async statPath(path: string): Promise<RemoteFile | null> {
    if (this.mlst) {
      const reply = await this.command(`MLST ${path}`);
      if (reply.code !== 250) return null;
      const line = reply.text.split("\n").find((l, i) => i > 0 && !/^\d{3}[ -]/.test(l));
      const file = line ? parseFacts(line.trimStart()) : null;
      return file ? { ...file, name: splitPath(path).name } : null;
    }
    const name = splitPath(path).name;
    const size = await this.command(`SIZE ${path}`);
    if (size.code === 213) {
      const bytes = this.parsed(() => parseSize(size));
      if (bytes === null) throw this.fail(new FileTransferError("protocol", `${this.server} answered SIZE ${path} without a size (${oneLine(size.text)})`));
      return { name, size: bytes, modifiedAt: parseMdtm(await this.command(`MDTM ${path}`)), isDirectory: false };
    }
    if (!(await this.enter(path))) return null;
    await this.leave();
    return { name, size: 0, modifiedAt: null, isDirectory: true };
  }

  private async renamePath(from: string, to: string): Promise<void> {
    const rnfr = await this.command(`RNFR ${from}`);
    if (rnfr.code !== 350) throw await this.refusalAbout(rnfr, `the rename of ${from}`, from);
    const rnto = await this.command(`RNTO ${to}`);
    if (rnto.code !== 250) throw this.refusal(rnto, `the rename of ${from} to ${to}`);
  }

  list(directory: string): Promise<RemoteFile[]> {
    return this.run(async () => {
      if (!(await this.enter(directory))) throw new FileTransferError("not_found", `${this.server} has no directory ${directory} we may enter`);
      try {
        const bytes = await this.download(this.mlst ? "MLSD" : "LIST", `the listing of ${directory}`, directory, 64 * 1024 * 1024);
        return parseListing(bytes, this.mlst);
      } finally {
        if (!this.broken && !this.timedOut) await this.leave();
      }
    });
  }

  read(path: string, maxBytes: number): Promise<Uint8Array> {
    return this.run(async () => {
      const size = await this.command(`SIZE ${path}`);
      // A size we cannot read is left to the download, which stops at maxBytes all the same.
      if ((parseSize(size) ?? 0) > maxBytes) throw new FileTransferError("protocol", `${path} on ${this.server} is larger than the limit of ${maxBytes} bytes`);
      return this.download(`RETR ${path}`, `the download of ${path}`, path, maxBytes);
    });
  }

  writeAtomic(path: string, bytes: Uint8Array): Promise<void> {
    return this.run(async () => {
      const { directory, name } = splitPath(path);
      // One temporary name per file, not per attempt: an upload killed mid-way (the Worker gone)
      // leaves it behind, and the next attempt's STOR overwrites it and renames it away, so no
      // orphan stays on the supplier's server. Attempts at one file never overlap (the send lease).
      const temporary = temporaryName(directory, name);
      try {
        await this.upload(temporary, bytes);
        try {
          await this.renamePath(temporary, path);
        } catch (error) {
          // Most servers (vsftpd among them) replace the target on RNTO; some refuse while it exists.
          if (!(error instanceof FileTransferError) || error.unclear || !(await this.statPath(path))) throw error;
          const dele = await this.command(`DELE ${path}`);
          if (dele.code !== 250) throw this.refusal(dele, `the replacement of ${path}`);
          await this.renamePath(temporary, path);
        }
      } catch (error) {
        if (!this.broken && !this.timedOut && this.socket) await this.command(`DELE ${temporary}`).catch(() => {});
        throw error;
      }
    });
  }

  rename(from: string, to: string): Promise<void> {
    return this.run(() => this.renamePath(from, to));
  }

  remove(path: string): Promise<void> {
    return this.run(async () => {
      const reply = await this.command(`DELE ${path}`);
      if (reply.code !== 250) throw await this.refusalAbout(reply, `the removal of ${path}`, path);
    });
  }

  stat(path: string): Promise<RemoteFile | null> {
    return this.run(() => this.statPath(path));
  }

  async close(): Promise<void> {
    if (this.closed) return;
    try {
      if (!this.broken && !this.timedOut && this.writer) await this.run(() => this.command("QUIT")).catch(() => {});
    } finally {
      this.shutdown();
    }
  }

  private shutdown(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.closeData();
    this.socket?.close().catch(() => {});
  }
}

/** An FTP/FTPS connector over `open` (by default the runtime's connect()). */
export function createFtpConnector(open: SocketOpener = connect): FileTransferConnector {
  return async (settings) => {
    if (settings.protocol !== "ftp" && settings.protocol !== "ftps") throw new FileTransferError("protocol", `the FTP connector does not speak ${settings.protocol}`);
    const session = new FtpSession(settings, open);
    await session.connect();
    return session;
  };
}

export const ftpConnector: FileTransferConnector = createFtpConnector();
