// Credentials sealed as the Worker seals them (src/lib/sealed.ts: "v1.<key id>.<iv>.<ciphertext>",
// AES-256-GCM under SHA-256(SECRETS_KEY), the key id the first 8 hex digits of SHA-256 of that,
// bound to its row as the additional data), written independently with Node's crypto for the
// scripts and suites that run outside the Worker (the benchmark, the browser tests): the Worker
// opening what they seal is the check.
import { createCipheriv, createHash, randomBytes } from "node:crypto";

export function sealForWorker(secretsKey, plaintext, boundTo) {
  const key = createHash("sha256").update(secretsKey).digest();
  const id = createHash("sha256").update(key).digest("hex").slice(0, 8);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", key, iv);
  cipher.setAAD(Buffer.from(boundTo));
  const data = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final(), cipher.getAuthTag()]);
  return `v1.${id}.${iv.toString("base64url")}.${data.toString("base64url")}`;
}
