// The smallest SSH-2 client the SFTP connector needs, over the Workers runtime's TCP sockets: the
// transport (RFC 4253) with one key exchange, the host key pinned, user authentication by password
// or key (RFC 4252), and one session channel running a subsystem (RFC 4254). Nothing else: no
// shell, no forwarding, no re-keying (sessions are short; a server that asks for a new key exchange
// ends the session with a protocol error), no compression. Keys are in ssh-keys.ts, the wire
// encodings in ssh-wire.ts.
//
// Why our own: ssh2 (the maintained npm SSH client) loads in workerd, but every connection fails
// before the key exchange: it compiles its Poly1305 WebAssembly from bytes at load time, which
// workerd forbids ("Wasm code generation disallowed by embedder"), and its client waits on that
// before it starts (docs/file-transfer-sftp.md).
//
// Algorithms (the client's preference order, which decides which host key the server shows):
//   key exchange  curve25519-sha256 (RFC 8731), ecdh-sha2-nistp256 (RFC 5656), and strict key exchange
//                 (kex-strict-c-v00@openssh.com, the Terrapin counter-measure)
//   host key      ssh-ed25519 (RFC 8709), ecdsa-sha2-nistp256 (RFC 5656), rsa-sha2-512/256 (RFC 8332)
//   cipher, MAC   aes128-ctr, aes256-ctr (RFC 4344) with hmac-sha2-256-etm@openssh.com or hmac-sha2-256 (RFC 6668)
//   user keys     Ed25519 and RSA (signing rsa-sha2-256), in OpenSSH's format, PKCS#8 or PKCS#1 PEM, unencrypted
import { connect } from "cloudflare:sockets";
import { createCipheriv, createDecipheriv, createHash, createHmac } from "node:crypto";
import { fingerprintOf, parsePrivateKey, verifyHostSignature, type UserKey } from "./ssh-keys";
import { BLOCK, CIPHERS, type Agreed, HOST_KEY_ALGORITHMS, hostKeyType, KEX_ALGORITHMS, MAC_LENGTH, MACS, negotiate, parseKexInit, readPacket, readServerVersion, type PacketKeys } from "./ssh-transport";
import { concat, Reader, shown, SshProtocolError, Writer } from "./ssh-wire";
import { FileTransferError, refuseUnreachable, type FileTransferErrorKind } from "./transfer";

const utf8 = new TextEncoder();
const sha256 = (data: Uint8Array) => new Uint8Array(createHash("sha256").update(data).digest());

// ---- Message numbers (RFC 4250 §4.1) ----
const MSG = {
  DISCONNECT: 1,
  IGNORE: 2,
  UNIMPLEMENTED: 3,
  DEBUG: 4,
  SERVICE_REQUEST: 5,
  SERVICE_ACCEPT: 6,
  EXT_INFO: 7,
  KEXINIT: 20,
  NEWKEYS: 21,
  KEX_ECDH_INIT: 30,
  KEX_ECDH_REPLY: 31,
  USERAUTH_REQUEST: 50,
  USERAUTH_FAILURE: 51,
  USERAUTH_SUCCESS: 52,
  USERAUTH_BANNER: 53,
  USERAUTH_PASSWD_CHANGEREQ: 60,
  // Keyboard-interactive's (RFC 4256 §5): 60 means this while that method runs.
  USERAUTH_INFO_REQUEST: 60,
  USERAUTH_INFO_RESPONSE: 61,
  GLOBAL_REQUEST: 80,
  REQUEST_FAILURE: 82,
  CHANNEL_OPEN: 90,
  CHANNEL_OPEN_CONFIRMATION: 91,
  CHANNEL_OPEN_FAILURE: 92,
  CHANNEL_WINDOW_ADJUST: 93,
  CHANNEL_DATA: 94,
  CHANNEL_EXTENDED_DATA: 95,
  CHANNEL_EOF: 96,
  CHANNEL_CLOSE: 97,
  CHANNEL_REQUEST: 98,
  CHANNEL_SUCCESS: 99,
  CHANNEL_FAILURE: 100,
} as const;

/** What we let the server send before it waits for our window adjustment, and its largest data packet. */
const LOCAL_WINDOW = 2 * 1024 * 1024;
const LOCAL_MAX_PACKET = 32 * 1024;

export const CLIENT_VERSION = "SSH-2.0-OrderIntake_1.0";

// ---- The connection ----

export type SshOptions = {
  host: string;
  port: number;
  username: string;
  password?: string;
  privateKey?: string;
  hostKeyFingerprint: string;
  /** When the whole session must be over (Date.now() scale), and the time box it came from. */
  deadline: number;
  timeoutMs: number;
};

const err = (kind: FileTransferErrorKind, message: string, unclear = false) => new FileTransferError(kind, message, unclear);

/**
 * One SSH connection with one session channel running a subsystem. Every wait ends at the
 * deadline: then the connection is closed and everything pending fails with `timeout`.
 */
export class SshConnection {
  private socket!: ReturnType<typeof connect>;
  private writer!: WritableStreamDefaultWriter<Uint8Array>;
  private reader!: ReadableStreamDefaultReader<Uint8Array>;
  private buffered: Uint8Array = new Uint8Array(0);
  private sendSeq = 0;
  private recvSeq = 0;
  private sendKeys: PacketKeys | null = null;
  private recvKeys: PacketKeys | null = null;
  private sessionId: Uint8Array | null = null;
  private failure: FileTransferError | null = null;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private onFailure = new Set<(error: FileTransferError) => void>();
  /** What the connection is waiting for, for the timeout's message. */
  private step = "connecting";
  /** host:port, as every message names the server. */
  readonly where: string;

  // The channel (RFC 4254 §5): our id is 0; the server's id, window and packet size once open.
  private remoteChannel = 0;
  private remoteWindow = 0;
  private remoteMaxPacket = 0;
  private localWindowLeft = LOCAL_WINDOW;
  private windowWaiters: (() => void)[] = [];
  private sendChain: Promise<void> = Promise.resolve();
  /** Receives the subsystem's bytes once the channel runs. */
  onData: (data: Uint8Array) => void = () => undefined;

  private constructor(private readonly options: SshOptions) {
    this.where = `${options.host}:${options.port}`;
  }

  /** Connects, exchanges keys (checking the pinned host key), authenticates and starts the subsystem. */
  static async open(options: SshOptions, subsystem: string): Promise<SshConnection> {
    const ssh = new SshConnection(options);
    const remaining = options.deadline - Date.now();
    ssh.timer = setTimeout(() => ssh.fail(err("timeout", `${ssh.where} did not answer within the session's ${options.timeoutMs} ms (${ssh.step})`)), Math.max(0, remaining));
    try {
      await ssh.guard(ssh.start(subsystem));
      return ssh;
    } catch (error) {
      ssh.close();
      throw error;
    }
  }

  /** Runs `work` until it ends or the connection fails (timeout, dropped connection), whichever is first. */
  guard<T>(work: Promise<T>): Promise<T> {
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<T>((resolve, reject) => {
      this.onFailure.add(reject);
      work
        .then(resolve, (error: unknown) => reject(this.failure ?? this.translate(error)))
        .finally(() => this.onFailure.delete(reject));
    });
  }

  setStep(step: string) {
    this.step = step;
  }

  get failed(): FileTransferError | null {
    return this.failure;
  }

  private translate(error: unknown): FileTransferError {
    if (error instanceof FileTransferError) return error;
    if (error instanceof SshProtocolError) return err("protocol", `${this.where}: ${error.message} (${this.step})`);
    return err("protocol", `${this.where}: ${error instanceof Error ? error.message : String(error)} (${this.step})`);
  }

  /** Ends the connection with this error: every pending and later wait fails with it. */
  fail(error: FileTransferError) {
    if (this.failure) return;
    this.failure = error;
    for (const reject of this.onFailure) reject(error);
    this.onFailure.clear();
    for (const wake of this.windowWaiters.splice(0)) wake();
    this.close();
  }

  close() {
    clearTimeout(this.timer);
    if (!this.failure) this.failure = err("protocol", "the session is closed");
    try {
      this.socket?.close().catch(() => undefined);
    } catch {
      // already closed
    }
  }

  private async start(subsystem: string) {
    const { host, port } = this.options;
    refuseUnreachable(host);
    this.socket = connect({ hostname: host, port });
    // A failed connect also rejects `closed`; the failure is reported through `opened`.
    this.socket.closed.catch(() => undefined);
    let opened: SocketInfo;
    try {
      opened = await this.socket.opened;
    } catch (error) {
      throw await this.connectFailure(error);
    }
    refuseUnreachable(host, opened);
    this.writer = this.socket.writable.getWriter();
    this.reader = this.socket.readable.getReader();
    this.setStep("waiting for the SSH greeting");
    const serverVersion = await this.versionExchange();
    this.setStep("exchanging keys");
    await this.keyExchange(serverVersion);
    this.setStep("authenticating");
    await this.authenticate();
    this.setStep("opening the SFTP channel");
    await this.openChannel(subsystem);
    // From here on the server's packets are read in the background and handed to the channel.
    this.setStep("working");
    void this.pump();
  }

  /**
   * Why the connect failed. workerd's socket says the same for a refused port and a name that does
   * not resolve ("proxy request failed, cannot connect to the specified address"); its fetch() tells
   * them apart ("internal error" for a name that does not resolve, as src/lib/fetch-failure.ts
   * found), so a host name is asked once more through fetch.
   */
  private async connectFailure(error: unknown): Promise<FileTransferError> {
    const { host, port } = this.options;
    const refused = err("refused", `the connection to ${this.where} was refused: nothing listens on port ${port} there`);
    const message = error instanceof Error ? error.message : String(error);
    if (!/cannot connect|connection lost|refused/i.test(message)) return err("refused", `could not connect to ${this.where}: ${message}`);
    if (/^[\d.]+$|:/.test(host)) return refused;
    try {
      await fetch(`http://${host}:${port}/`, { signal: AbortSignal.timeout(Math.max(1, Math.min(3000, this.options.deadline - Date.now()))) });
    } catch (probe) {
      if (probe instanceof Error && /internal error/i.test(probe.message)) return err("dns", `the host name ${host} does not resolve (DNS)`);
    }
    return refused;
  }

  // ---- Reading and writing packets (RFC 4253 §6) ----

  /** A close, a reset ("Network connection lost.") or a failed write are the same to us: the connection ended. */
  private lost(): FileTransferError {
    return this.failure ?? err("protocol", `the connection to ${this.where} was lost (${this.step})`);
  }

  private async fill(n: number): Promise<Uint8Array> {
    while (this.buffered.length < n) {
      const { value, done } = await this.reader.read().catch(() => {
        throw this.lost();
      });
      if (done) throw this.lost();
      this.buffered = this.buffered.length ? concat([this.buffered, value]) : value;
    }
    const out = this.buffered.subarray(0, n);
    this.buffered = this.buffered.subarray(n);
    return out;
  }

  /** RFC 4253 §4.2: our version line, then the server's (ssh-transport.ts reads it). */
  private async versionExchange(): Promise<string> {
    await this.writer.write(utf8.encode(`${CLIENT_VERSION}\r\n`));
    const server = await readServerVersion(async () => (await this.fill(1))[0]);
    if (server.ok) return server.version;
    if (server.speaks) throw err("protocol", `${this.where} speaks ${JSON.stringify(server.speaks.slice(0, 80))}, not SSH 2`);
    throw err("protocol", `${this.where} is not an SSH server (it said ${JSON.stringify(server.said.slice(0, 80))}): is ${this.options.port} its SFTP port?`);
  }

  /** The next packet's payload (ssh-transport.ts checks its framing and MAC); a malformed one ends the connection in words. */
  private async readPacket(): Promise<Uint8Array> {
    try {
      const payload = await readPacket((n) => this.fill(n), this.recvKeys, this.recvSeq);
      this.recvSeq = (this.recvSeq + 1) >>> 0;
      return payload;
    } catch (error) {
      if (error instanceof SshProtocolError) throw err("protocol", `${this.where} ${error.message} (${this.step})`);
      throw error;
    }
  }

  /** Encrypts and queues one packet; packets go out in the order of the calls. */
  private sendPacket(payload: Uint8Array): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const keys = this.sendKeys;
    const block = keys ? BLOCK : 8;
    // With ETM the length field is outside the blocks; otherwise it is inside the first.
    const covered = 1 + payload.length + (keys?.etm ? 0 : 4);
    let padding = block - (covered % block);
    if (padding < 4) padding += block;
    const body = concat([Uint8Array.of(padding), payload, crypto.getRandomValues(new Uint8Array(padding))]);
    const length = new Writer().u32(body.length).done();
    const seq = new Writer().u32(this.sendSeq).done();
    this.sendSeq = (this.sendSeq + 1) >>> 0;
    let wire: Uint8Array;
    if (!keys) wire = concat([length, body]);
    else if (keys.etm) {
      const encrypted = new Uint8Array(keys.cipher.update(body));
      const mac = createHmac("sha256", keys.macKey).update(seq).update(length).update(encrypted).digest();
      wire = concat([length, encrypted, new Uint8Array(mac)]);
    } else {
      const plain = concat([length, body]);
      const mac = createHmac("sha256", keys.macKey).update(seq).update(plain).digest();
      wire = concat([new Uint8Array(keys.cipher.update(plain)), new Uint8Array(mac)]);
    }
    return this.writer.write(wire).catch(() => {
      const lost = this.lost();
      this.fail(lost);
      throw lost;
    });
  }

  /** The next packet that is not transport noise (ignore, debug, unimplemented, global requests). */
  private async nextMessage(strict = false): Promise<Reader & { type: number }> {
    for (;;) {
      const payload = await this.readPacket();
      const r = Object.assign(new Reader(payload), { type: payload[0] });
      r.byte();
      if (r.type === MSG.DISCONNECT) throw this.disconnected(r);
      if (strict) return r;
      if (r.type === MSG.IGNORE || r.type === MSG.DEBUG || r.type === MSG.UNIMPLEMENTED || r.type === MSG.EXT_INFO || r.type === MSG.USERAUTH_BANNER) continue;
      if (r.type === MSG.GLOBAL_REQUEST) {
        r.text();
        if (r.bool()) await this.sendPacket(new Writer().byte(MSG.REQUEST_FAILURE).done());
        continue;
      }
      if (r.type === MSG.KEXINIT) throw err("protocol", `${this.where} asked for a new key exchange, which this client does not do (sessions are short)`);
      return r;
    }
  }

  /** A DISCONNECT (RFC 4253 §11.1) in words: the server's reason, shown briefly. */
  private disconnected(r: Reader): FileTransferError {
    r.u32();
    return err("protocol", `${this.where} ended the connection: ${shown(r.text(), 200) || "no reason given"} (${this.step})`);
  }

  private async expect(type: number, strict = false) {
    const r = await this.nextMessage(strict);
    if (r.type !== type) throw err("protocol", `${this.where} sent message ${r.type} where ${type} was expected (${this.step})`);
    return r;
  }

  // ---- Key exchange (RFC 4253 §7, RFC 8731, RFC 5656 §4) ----

  private async keyExchange(serverVersion: string) {
    const clientInit = new Writer()
      .byte(MSG.KEXINIT)
      .raw(crypto.getRandomValues(new Uint8Array(16)))
      .string([...KEX_ALGORITHMS, "kex-strict-c-v00@openssh.com"].join(","))
      .string(HOST_KEY_ALGORITHMS.join(","))
      .string(Object.keys(CIPHERS).join(","))
      .string(Object.keys(CIPHERS).join(","))
      .string(Object.keys(MACS).join(","))
      .string(Object.keys(MACS).join(","))
      .string("none")
      .string("none")
      .string("")
      .string("")
      .bool(false)
      .u32(0)
      .done();
    await this.sendPacket(clientInit);
    const serverInitPayload = await this.readPacket();
    if (serverInitPayload[0] === MSG.DISCONNECT) {
      const r = new Reader(serverInitPayload);
      r.byte();
      throw this.disconnected(r);
    }
    if (serverInitPayload[0] !== MSG.KEXINIT) throw err("protocol", `${this.where} did not start the key exchange`);
    let agreed: Agreed;
    try {
      agreed = negotiate(parseKexInit(serverInitPayload));
    } catch (error) {
      if (error instanceof SshProtocolError) throw err("protocol", `${this.where} ${error.message}`);
      throw error;
    }
    const { kex, hostKey: hostKeyAlgorithm, strict, wrongGuess } = agreed;
    const cipher = { cs: agreed.cipherCS, sc: agreed.cipherSC };
    const mac = { cs: agreed.macCS, sc: agreed.macSC };

    // Ephemeral key pair; the shared secret K comes out of deriveBits (RFC 8731 §3, RFC 5656 §4).
    const params = kex === "ecdh-sha2-nistp256" ? { name: "ECDH", namedCurve: "P-256" } : { name: "X25519" };
    const ours = (await crypto.subtle.generateKey(params, true, ["deriveBits"])) as CryptoKeyPair;
    const clientPublic = new Uint8Array((await crypto.subtle.exportKey("raw", ours.publicKey)) as ArrayBuffer);
    await this.sendPacket(new Writer().byte(MSG.KEX_ECDH_INIT).string(clientPublic).done());
    if (wrongGuess) await this.readPacket();
    const reply = await this.expect(MSG.KEX_ECDH_REPLY, strict);
    const hostKeyBlob = reply.bytesField();
    const serverPublic = reply.bytesField();
    const signature = reply.bytesField();

    // The pinned host key, before anything else is sent: a mismatch ends here, before authentication.
    const fingerprint = fingerprintOf(hostKeyBlob);
    const pinned = this.options.hostKeyFingerprint.trim().replace(/=+$/, "");
    const keyType = hostKeyType(hostKeyBlob);
    // None pinned yet (a set-up's test): the key is learnt, proven by its signature below, and the
    // connection ends there, before authenticating: nothing secret is sent to an unpinned server.
    const learning = pinned === "";
    if (!learning && fingerprint !== pinned) {
      throw new FileTransferError(
        "host_key_mismatch",
        `the host key of ${this.where} is ${fingerprint} (${keyType}), not the pinned ${pinned}: refused before authenticating (the server changed its key, or someone is in between)`,
        false,
        { fingerprint, type: keyType },
      );
    }

    let secret: Uint8Array;
    try {
      const theirs = await crypto.subtle.importKey("raw", serverPublic, params, false, []);
      secret = new Uint8Array(await crypto.subtle.deriveBits({ name: params.name, public: theirs } as SubtleCryptoDeriveKeyAlgorithm, ours.privateKey, 256));
    } catch {
      throw err("protocol", `${this.where} sent an invalid key exchange value`);
    }
    if (secret.every((b) => b === 0)) throw err("protocol", `${this.where} sent a degenerate key exchange value`);
    const k = new Writer().mpint(secret).done();
    const exchangeHash = sha256(
      new Writer()
        .string(CLIENT_VERSION)
        .string(serverVersion)
        .string(clientInit)
        .string(serverInitPayload)
        .string(hostKeyBlob)
        .string(clientPublic)
        .string(serverPublic)
        .raw(k)
        .done(),
    );
    const signedWith = hostKeyType(signature);
    if (signedWith !== hostKeyAlgorithm && !(hostKeyAlgorithm.startsWith("rsa-sha2-") && signedWith.startsWith("rsa-sha2-"))) {
      throw err("protocol", `${this.where} signed the key exchange with ${signedWith}, not the ${hostKeyAlgorithm} agreed`);
    }
    let verified: boolean;
    try {
      verified = await verifyHostSignature(hostKeyBlob, signature, exchangeHash);
    } catch (error) {
      if (error instanceof SshProtocolError) throw err("protocol", `${this.where} ${error.message}: refused before authenticating`);
      throw error;
    }
    if (!verified) {
      throw err("host_key_mismatch", `${this.where} showed the ${learning ? "" : "pinned "}host key ${fingerprint} but could not prove it holds it (bad signature): refused before authenticating`);
    }
    if (learning) {
      throw new FileTransferError(
        "host_key_mismatch",
        `no host key is pinned: ${this.where} shows ${fingerprint} (${keyType}); compare it with the one the supplier gave you, then pin it (not authenticated)`,
        false,
        { fingerprint, type: keyType },
      );
    }
    this.sessionId = exchangeHash;

    await this.sendPacket(Uint8Array.of(MSG.NEWKEYS));
    if (strict) this.sendSeq = 0;
    await this.expect(MSG.NEWKEYS, strict);
    if (strict) this.recvSeq = 0;

    // RFC 4253 §7.2: HASH(K || H || letter || session_id), extended by HASH(K || H || so far).
    const derive = (letter: string, length: number) => {
      let out: Uint8Array = sha256(concat([k, exchangeHash, utf8.encode(letter), exchangeHash]));
      while (out.length < length) out = concat([out, sha256(concat([k, exchangeHash, out]))]);
      return out.subarray(0, length);
    };
    const cs = CIPHERS[cipher.cs];
    const sc = CIPHERS[cipher.sc];
    this.sendKeys = { cipher: createCipheriv(cs.node, derive("C", cs.keyLength), derive("A", 16)), macKey: derive("E", MAC_LENGTH), etm: MACS[mac.cs].etm };
    this.recvKeys = { cipher: createDecipheriv(sc.node, derive("D", sc.keyLength), derive("B", 16)), macKey: derive("F", MAC_LENGTH), etm: MACS[mac.sc].etm };
  }

  // ---- User authentication (RFC 4252) ----

  private async authenticate() {
    const { username, password, privateKey } = this.options;
    await this.sendPacket(new Writer().byte(MSG.SERVICE_REQUEST).string("ssh-userauth").done());
    await this.expect(MSG.SERVICE_ACCEPT);
    let request: Uint8Array;
    let method: string;
    if (privateKey) {
      method = "key";
      let key: UserKey;
      try {
        key = await parsePrivateKey(privateKey);
      } catch (error) {
        throw err("auth", `cannot use the private key: ${error instanceof Error ? error.message : String(error)}`);
      }
      // RFC 4252 §7: the signature covers the session id and the request itself.
      const unsigned = new Writer().byte(MSG.USERAUTH_REQUEST).string(username).string("ssh-connection").string("publickey").bool(true).string(key.algorithm).string(key.publicBlob).done();
      const signature = await key.sign(concat([new Writer().string(this.sessionId!).done(), unsigned]));
      request = concat([unsigned, new Writer().string(signature).done()]);
    } else {
      method = "password";
      request = new Writer().byte(MSG.USERAUTH_REQUEST).string(username).string("ssh-connection").string("password").bool(false).string(password ?? "").done();
    }
    await this.sendPacket(request);
    let answer = await this.nextMessage();
    if (answer.type === MSG.USERAUTH_FAILURE && !privateKey) {
      // Servers that check passwords through PAM often offer only keyboard-interactive (RFC 4256).
      const allowed = answer.names();
      if (!allowed.includes("password") && allowed.includes("keyboard-interactive")) {
        method = "password (keyboard-interactive)";
        answer = await this.keyboardInteractive(username, password ?? "");
      } else {
        throw err("auth", `${this.where} refused the ${method} of user ${username} (authentication failed; the server accepts: ${shown(allowed.join(", "), 200) || "nothing"})`);
      }
    }
    if (answer.type === MSG.USERAUTH_SUCCESS) return;
    if (answer.type === MSG.USERAUTH_FAILURE) {
      const allowed = answer.names();
      throw err("auth", `${this.where} refused the ${method} of user ${username} (authentication failed; the server accepts: ${shown(allowed.join(", "), 200) || "nothing"})`);
    }
    if (answer.type === MSG.USERAUTH_PASSWD_CHANGEREQ) throw err("auth", `${this.where} wants user ${username} to change the password before signing in`);
    throw err("protocol", `${this.where} answered the authentication with message ${answer.type}`);
  }

  /** RFC 4256 §3: the password answers the one hidden prompt; a round without prompts is answered empty. */
  private async keyboardInteractive(username: string, password: string) {
    await this.sendPacket(new Writer().byte(MSG.USERAUTH_REQUEST).string(username).string("ssh-connection").string("keyboard-interactive").string("").string("").done());
    for (let round = 0; round < 5; round++) {
      const r = await this.nextMessage();
      if (r.type !== MSG.USERAUTH_INFO_REQUEST) return r;
      r.text(); // name
      r.text(); // instruction
      r.text(); // language
      const prompts: string[] = [];
      for (let n = r.u32(); n > 0; n--) prompts.push(r.text()), r.bool();
      if (prompts.length > 1) throw err("auth", `${this.where} asks user ${username} ${prompts.length} questions to sign in (${shown(prompts.map((p) => p.trim()).join(" / "), 200)}); we can answer only a password`);
      const response = new Writer().byte(MSG.USERAUTH_INFO_RESPONSE).u32(prompts.length);
      if (prompts.length === 1) response.string(password);
      await this.sendPacket(response.done());
    }
    throw err("auth", `${this.where} kept asking user ${username} questions to sign in`);
  }

  // ---- The session channel (RFC 4254 §5, §6.5) ----

  private async openChannel(subsystem: string) {
    await this.sendPacket(new Writer().byte(MSG.CHANNEL_OPEN).string("session").u32(0).u32(LOCAL_WINDOW).u32(LOCAL_MAX_PACKET).done());
    const opened = await this.nextMessage();
    if (opened.type === MSG.CHANNEL_OPEN_FAILURE) {
      opened.u32();
      opened.u32();
      throw err("protocol", `${this.where} refused a session channel: ${shown(opened.text(), 200)}`);
    }
    if (opened.type !== MSG.CHANNEL_OPEN_CONFIRMATION) throw err("protocol", `${this.where} answered the channel request with message ${opened.type}`);
    opened.u32();
    this.remoteChannel = opened.u32();
    this.remoteWindow = opened.u32();
    this.remoteMaxPacket = opened.u32();
    await this.sendPacket(new Writer().byte(MSG.CHANNEL_REQUEST).u32(this.remoteChannel).string("subsystem").bool(true).string(subsystem).done());
    for (;;) {
      const r = await this.nextMessage();
      if (r.type === MSG.CHANNEL_WINDOW_ADJUST) {
        r.u32();
        this.remoteWindow += r.u32();
        continue;
      }
      if (r.type === MSG.CHANNEL_SUCCESS) return;
      if (r.type === MSG.CHANNEL_FAILURE) throw err("protocol", `${this.where} has no ${subsystem} subsystem (is SFTP enabled for this user?)`);
      throw err("protocol", `${this.where} answered the ${subsystem} request with message ${r.type}`);
    }
  }

  /** Reads the server's packets for as long as the channel runs, handing data to onData. */
  private async pump() {
    try {
      for (;;) {
        const r = await this.nextMessage();
        if (r.type === MSG.CHANNEL_DATA) {
          r.u32();
          const data = r.bytesField();
          this.localWindowLeft -= data.length;
          if (this.localWindowLeft < LOCAL_WINDOW / 2) {
            await this.sendPacket(new Writer().byte(MSG.CHANNEL_WINDOW_ADJUST).u32(this.remoteChannel).u32(LOCAL_WINDOW - this.localWindowLeft).done());
            this.localWindowLeft = LOCAL_WINDOW;
          }
          this.onData(data);
        } else if (r.type === MSG.CHANNEL_WINDOW_ADJUST) {
          r.u32();
          this.remoteWindow += r.u32();
          for (const wake of this.windowWaiters.splice(0)) wake();
        } else if (r.type === MSG.CHANNEL_EOF || r.type === MSG.CHANNEL_CLOSE) {
          throw err("protocol", `${this.where} closed the SFTP channel`);
        }
        // Extended data (stderr), requests and anything else on the channel are not ours to act on.
      }
    } catch (error) {
      // The requests still waiting say that they may have happened (sftp.ts).
      this.fail(this.failure ?? this.translate(error));
    }
  }

  /** Sends the subsystem's bytes, within the server's window and packet size, in call order. */
  send(data: Uint8Array): Promise<void> {
    const run = this.sendChain.then(async () => {
      for (let at = 0; at < data.length; ) {
        if (this.failure) throw this.failure;
        if (this.remoteWindow === 0) {
          await new Promise<void>((wake) => this.windowWaiters.push(wake));
          continue;
        }
        const n = Math.min(data.length - at, this.remoteWindow, Math.max(1, this.remoteMaxPacket - 64));
        this.remoteWindow -= n;
        await this.sendPacket(new Writer().byte(MSG.CHANNEL_DATA).u32(this.remoteChannel).string(data.subarray(at, at + n)).done());
        at += n;
      }
    });
    this.sendChain = run.catch(() => undefined);
    return run;
  }

  /** Closes the channel politely, then the connection. */
  async end() {
    if (!this.failure) {
      try {
        await this.sendPacket(new Writer().byte(MSG.CHANNEL_CLOSE).u32(this.remoteChannel).done());
        await this.sendPacket(new Writer().byte(MSG.DISCONNECT).u32(11).string("done").string("").done());
      } catch {
        // closing anyway
      }
    }
    this.close();
  }
}
