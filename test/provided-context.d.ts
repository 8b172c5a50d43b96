// Values vitest's globalSetup provides to tests (read with inject()).
declare module "vitest" {
  export interface ProvidedContext {
    /** Debian's X12::Parser served on loopback (test/lib/x12/x12-parser-perl.global.ts): POST /read?cf=850|997. */
    x12PerlUrl: string;
    /** Base URL of the fake remote server (test/helpers/fake-remote.global.ts). */
    fakeRemoteUrl: string;
    /** The stand-in shops (test/shops/stand-ins/harness.ts): create one with POST /__shops. */
    standInShopsUrl: string;
    /** A loopback URL whose port nothing listens on: a connection there is refused. */
    closedPortUrl: string;
    /** Seed of the property-based tests (FUZZ_SEED; fixed by default). */
    fuzzSeed: number;
    /** Multiplier of their run counts (FUZZ_SCALE, at least 1). */
    fuzzScale: number;
    /** The browser suite (test/browser/console.global.ts): the Worker's origin, e.g. http://127.0.0.1:41234. */
    consoleUrl: string;
    /** Its ADMIN_TOKEN (random per run). */
    adminToken: string;
    /** Its SECRETS_KEY (random per run): a test seals a shop connection's credentials as the Worker does. */
    secretsKey: string;
    /** The shared Chromium's playwright endpoint. */
    browserEndpoint: string;
    /** The Worker's local D1 file (to age a session past its expiry). */
    d1File: string;
    /** Where each run writes its screenshots (gitignored). */
    screenshotsDir: string;
    /** The docs suite (test/docs/docs.global.ts): its Worker's origin. */
    docsUrl: string;
    /** That Worker's ADMIN_TOKEN. */
    docsAdminToken: string;
    /** Its demo account, as npm start writes it into .demo-credentials.json. */
    docsCredentials: { account_id: number; api_key: string; supplier_key: string; supplier_name: string };
    /** The FTP tests' vsftpd (test/lib/file-transfer/ftp-server.global.ts): FTP and explicit FTPS on one port,
     *  the same with vsftpd's default require_ssl_reuse=YES on another, one taking uploads at 2 MB/s,
     *  a loopback port that accepts and never says a word, one that greets and then answers nothing,
     *  one that greets and then closes on the first command, and vsftpd behind a relay that
     *  refuses EPSV and renames onto an existing file. */
    ftpServer: { host: string; port: number; sslReusePort: number; slowPort: number; username: string; password: string; silentPort: number; mutePort: number; dropPort: number; quirkyPort: number };
    /** The hostile FTP server (test/lib/file-transfer/ftp-hostile.global.ts): its control port, and the port a test scripts its next session on. */
    ftpHostile: { port: number; scriptPort: number };
    /** The second and third FTP implementations (test/lib/file-transfer/ftp-servers.global.ts): Pure-FTPd (FTP and explicit FTPS) and ProFTPD with mod_tls (FTP and explicit FTPS over TLS 1.2), each with a user and a root of its own. */
    ftpOthers: Record<"pureftpd" | "proftpd", { host: string; port: number; username: string; password: string }>;
    /**
     * The real OpenSSH server of the SFTP tests (test/lib/file-transfer/sftp-server.global.ts): its
     * test user's password and private keys (PEM), its host key's fingerprint, the same server with
     * other algorithms (variants), the folder sessions start in (upload/ writable, readonly/ not), a
     * loopback port that accepts and never answers, and a URL that shows the sshd log.
     */
    sftp: {
      host: string;
      port: number;
      username: string;
      password: string;
      /** Ed25519 and RSA in OpenSSH's format, RSA as PKCS#1 PEM, and an Ed25519 key with a passphrase. */
      privateKey: string;
      rsaPrivateKey: string;
      rsaPemPrivateKey: string;
      passphraseProtectedKey: string;
      hostKeyFingerprint: string;
      variants: Record<"ecdsa" | "rsa" | "rsa256" | "chacha" | "keyboard", { port: number; hostKeyFingerprint: string }>;
      root: string;
      hangPort: number;
      /** The main sshd through a proxy that cuts the connection once the client sent 512 KiB. */
      cutPort: number;
      /** The main sshd through a relay that flips one bit of the server's first encrypted packet. */
      tamperPort: number;
      logUrl: string;
      /** The same test user on sshd instances that offer only weak algorithms, one kind each, and one with a 1024-bit RSA host key. */
      weak: Record<"kex" | "hostKey" | "cipher" | "mac" | "shortRsa", { port: number; hostKeyFingerprint: string }>;
    };
    /**
     * The second SSH implementation (test/lib/file-transfer/proftpd-sftp.global.ts): ProFTPD's
     * mod_sftp, its own user (a password and an Ed25519 key), the folder sessions start in
     * (upload/ writable, readonly/ not), and the same server offering only weak algorithms.
     */
    proftpdSftp: {
      host: string;
      port: number;
      username: string;
      password: string;
      privateKey: string;
      hostKeyFingerprint: string;
      weakPort: number;
    };
    /** Hostile "SSH servers" (test/lib/file-transfer/ssh-hostile.global.ts): a port per malformed greeting or packet. */
    sshHostile: {
      host: string;
      ports: Record<string, number>;
      badSignatureFingerprint: string;
      /** Servers that complete a real SSH handshake (any user and password), then answer SFTP with malformed replies. */
      sftpPorts: Record<string, number>;
      sftpFingerprints: Record<string, string>;
    };
  }
}
export {};
