// Values vitest's globalSetup provides to tests (read with inject()).
declare module "vitest" {
  export interface ProvidedContext {
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
     *  the same with vsftpd's default require_ssl_reuse=YES on another,
     *  a loopback port that accepts and never says a word, one that greets and then answers nothing,
     *  one that greets and then closes on the first command, and vsftpd behind a relay that
     *  refuses EPSV and renames onto an existing file. */
    ftpServer: { host: string; port: number; sslReusePort: number; username: string; password: string; silentPort: number; mutePort: number; dropPort: number; quirkyPort: number };
  }
}
export {};
