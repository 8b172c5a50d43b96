// The FTPS tests' throwaway certificates, made with openssl once per test run (keyed by the vitest
// process): a CA, and a certificate for 127.0.0.1 and localhost signed by it for vsftpd. Both
// vitest.config.ts (the CA goes into the Worker's trusting network, FTP_TEST_NETWORK) and the
// vsftpd setup (test/lib/file-transfer/ftp-server.global.ts) ask for them; the first call makes them.
// A CA apart from the server's certificate because workerd's TLS (rustls) refuses a self-signed
// certificate that is its own CA as a server's certificate (CaUsedAsEndEntity).
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export type FtpCertificates = { dir: string; caPem: string; certFile: string; keyFile: string };

export function ftpCertificates(): FtpCertificates {
  const dir = join(tmpdir(), `ftp-test-tls-${process.pid}`);
  const file = (name: string) => join(dir, name);
  if (!existsSync(file("server.pem"))) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Gone with the run, whichever projects it ran (the config asks for them even when no FTP test runs).
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }));
    const openssl = (...args: string[]) => execFileSync("openssl", args, { stdio: ["ignore", "ignore", "pipe"] });
    openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", file("ca.key"), "-out", file("ca.pem"), "-days", "2", "-subj", "/CN=order-intake FTP test CA");
    openssl("req", "-newkey", "rsa:2048", "-nodes", "-keyout", file("server.key"), "-out", file("server.csr"), "-subj", "/CN=127.0.0.1");
    writeFileSync(file("server.ext"), "basicConstraints=CA:FALSE\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth\nsubjectAltName=IP:127.0.0.1,DNS:localhost\n");
    openssl("x509", "-req", "-in", file("server.csr"), "-CA", file("ca.pem"), "-CAkey", file("ca.key"), "-CAcreateserial", "-out", file("server.tmp"), "-days", "2", "-extfile", file("server.ext"));
    // Written last under its final name: a second caller sees all or nothing.
    writeFileSync(file("server.pem"), readFileSync(file("server.tmp")));
  }
  return { dir, caPem: readFileSync(file("ca.pem"), "utf8"), certFile: file("server.pem"), keyFile: file("server.key") };
}
