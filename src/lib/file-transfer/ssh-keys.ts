// SSH keys: the server's host key (its fingerprint, as ssh-keygen prints it, and its signature of
// the key exchange) and the user's private key (reading its PEM, signing the authentication). With
// WebCrypto: Ed25519 (RFC 8709), ECDSA P-256 (RFC 5656), RSA with SHA-2 (RFC 8332).
import { createHash } from "node:crypto";
import { concat, Reader, shown, SshProtocolError, Writer } from "./ssh-wire";

const utf8 = new TextEncoder();

/** A host key's fingerprint as `ssh-keygen -l` prints it: SHA256 of the key blob, base64 without padding. */
export function fingerprintOf(hostKeyBlob: Uint8Array): string {
  return `SHA256:${createHash("sha256").update(hostKeyBlob).digest("base64").replace(/=+$/, "")}`;
}

const b64url = (bytes: Uint8Array) => Buffer.from(bytes).toString("base64url");
const unsignedOf = (mpint: Uint8Array) => (mpint[0] === 0 ? mpint.subarray(1) : mpint);

/** Fixed-width r||s from the two mpints of an SSH ECDSA signature (RFC 5656 §3.1.2), as WebCrypto wants. */
function ecdsaSignature(blob: Uint8Array, width: number): Uint8Array {
  const r = new Reader(blob);
  const out = new Uint8Array(width * 2);
  for (const [i, part] of [r.bytesField(), r.bytesField()].entries()) {
    const digits = unsignedOf(part);
    if (digits.length > width) throw new SshProtocolError("sent an ECDSA signature that is malformed");
    out.set(digits, width * (i + 1) - digits.length);
  }
  return out;
}

/** Whether `signatureBlob` is the host key's signature of the exchange hash (RFC 4253 §8). */
export async function verifyHostSignature(hostKeyBlob: Uint8Array, signatureBlob: Uint8Array, exchangeHash: Uint8Array): Promise<boolean> {
  try {
    return await verify(hostKeyBlob, signatureBlob, exchangeHash);
  } catch (error) {
    if (error instanceof SshProtocolError && /^(sent|showed|signed) /.test(error.message)) throw error;
    // WebCrypto refuses a key or signature of the wrong size or form (DataError): the server's blob is malformed.
    throw new SshProtocolError(`sent a host key or signature that cannot be read (${error instanceof Error ? error.message : String(error)})`);
  }
}

/** RSA host keys shorter than this are refused as weak (NIST SP 800-131A; OpenSSH's own floor is 1024). */
export const MIN_RSA_BITS = 2048;

async function verify(hostKeyBlob: Uint8Array, signatureBlob: Uint8Array, exchangeHash: Uint8Array): Promise<boolean> {
  const key = new Reader(hostKeyBlob);
  const keyType = key.text();
  const sig = new Reader(signatureBlob);
  const sigType = sig.text();
  const signature = sig.bytesField();
  const subtle = crypto.subtle;
  if (keyType === "ssh-ed25519" && sigType === "ssh-ed25519") {
    const publicKey = await subtle.importKey("raw", key.bytesField(), { name: "Ed25519" }, false, ["verify"]);
    return subtle.verify({ name: "Ed25519" }, publicKey, signature, exchangeHash);
  }
  if (keyType === "ecdsa-sha2-nistp256" && sigType === keyType) {
    key.text();
    const publicKey = await subtle.importKey("raw", key.bytesField(), { name: "ECDSA", namedCurve: "P-256" }, false, ["verify"]);
    return subtle.verify({ name: "ECDSA", hash: "SHA-256" }, publicKey, ecdsaSignature(signature, 32), exchangeHash);
  }
  if (keyType === "ssh-rsa" && (sigType === "rsa-sha2-256" || sigType === "rsa-sha2-512")) {
    const e = unsignedOf(key.bytesField());
    const n = unsignedOf(key.bytesField());
    const bits = n.length ? n.length * 8 - Math.clz32(n[0]) + 24 : 0;
    if (bits < MIN_RSA_BITS) throw new SshProtocolError(`showed an RSA host key of ${bits} bits; we refuse RSA keys under ${MIN_RSA_BITS} bits as weak`);
    const hash = sigType === "rsa-sha2-256" ? "SHA-256" : "SHA-512";
    const publicKey = await subtle.importKey("jwk", { kty: "RSA", n: b64url(n), e: b64url(e) }, { name: "RSASSA-PKCS1-v1_5", hash }, false, ["verify"]);
    return subtle.verify({ name: "RSASSA-PKCS1-v1_5" }, publicKey, signature, exchangeHash);
  }
  throw new SshProtocolError(`signed with ${shown(sigType)} for a ${shown(keyType)} host key, which we do not support`);
}

/** A user key that can sign the authentication request (RFC 4252 §7). */
export type UserKey = { algorithm: string; publicBlob: Uint8Array; sign(data: Uint8Array): Promise<Uint8Array> };

const bigintOf = (bytes: Uint8Array) => (bytes.length ? BigInt(`0x${Buffer.from(bytes).toString("hex")}`) : 0n);
const bytesOf = (n: bigint) => {
  const hex = n.toString(16);
  return new Uint8Array(Buffer.from(hex.length % 2 ? `0${hex}` : hex, "hex"));
};

const ed25519Key = (key: CryptoKey, publicRaw: Uint8Array): UserKey => ({
  algorithm: "ssh-ed25519",
  publicBlob: new Writer().string("ssh-ed25519").string(publicRaw).done(),
  sign: async (data) => new Writer().string("ssh-ed25519").string(new Uint8Array(await crypto.subtle.sign({ name: "Ed25519" }, key, data))).done(),
});

/** RSA keys sign with rsa-sha2-256 (RFC 8332), never the SHA-1 ssh-rsa that OpenSSH refuses since 8.8. */
async function rsaKey(jwk: JsonWebKey): Promise<UserKey> {
  const key = await crypto.subtle.importKey("jwk", jwk, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, false, ["sign"]);
  const fromB64url = (v: string | undefined) => new Uint8Array(Buffer.from(v ?? "", "base64url"));
  return {
    algorithm: "rsa-sha2-256",
    publicBlob: new Writer().string("ssh-rsa").mpint(fromB64url(jwk.e)).mpint(fromB64url(jwk.n)).done(),
    sign: async (data) => new Writer().string("rsa-sha2-256").string(new Uint8Array(await crypto.subtle.sign({ name: "RSASSA-PKCS1-v1_5" }, key, data))).done(),
  };
}

/** The DER length of a TLV (X.690 §8.1.3). */
const derLength = (n: number) => (n < 0x80 ? Uint8Array.of(n) : n < 0x100 ? Uint8Array.of(0x81, n) : n < 0x10000 ? Uint8Array.of(0x82, n >> 8, n & 0xff) : Uint8Array.of(0x83, n >> 16, (n >> 8) & 0xff, n & 0xff));
const der = (tag: number, body: Uint8Array) => concat([Uint8Array.of(tag), derLength(body.length), body]);

/** PKCS#1 (RFC 8017 A.1.2, "BEGIN RSA PRIVATE KEY") wrapped as PKCS#8 (RFC 5208 §5), which WebCrypto imports. */
function pkcs8OfPkcs1(pkcs1: Uint8Array): Uint8Array {
  const rsaEncryption = new Uint8Array(Buffer.from("300d06092a864886f70d0101010500", "hex"));
  return der(0x30, concat([Uint8Array.of(2, 1, 0), rsaEncryption, der(0x04, pkcs1)]));
}

/** A PKCS#8 key: Ed25519 or RSA, whichever WebCrypto takes it as. */
async function pkcs8Key(pkcs8: Uint8Array): Promise<UserKey> {
  const subtle = crypto.subtle;
  try {
    const key = await subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, true, ["sign"]);
    const jwk = await subtle.exportKey("jwk", key);
    return ed25519Key(key, new Uint8Array(Buffer.from((jwk as JsonWebKey).x ?? "", "base64url")));
  } catch {
    // not Ed25519
  }
  try {
    const key = await subtle.importKey("pkcs8", pkcs8, { name: "RSASSA-PKCS1-v1_5", hash: "SHA-256" }, true, ["sign"]);
    return rsaKey((await subtle.exportKey("jwk", key)) as JsonWebKey);
  } catch {
    throw new Error("the PEM private key is neither Ed25519 nor RSA (we support those two)");
  }
}

/** An unencrypted private key in OpenSSH's own format (the layout is OpenSSH's PROTOCOL.key). */
async function openSshKey(bytes: Uint8Array): Promise<UserKey> {
  const magic = utf8.encode("openssh-key-v1\0");
  if (!magic.every((b, i) => bytes[i] === b)) throw new Error("the private key is not an openssh-key-v1 key");
  const r = new Reader(bytes.subarray(magic.length));
  const cipher = r.text();
  r.text(); // kdf name
  r.bytesField(); // kdf options
  if (cipher !== "none") throw new Error("the private key is protected by a passphrase, which we do not support: remove it with ssh-keygen -p -N '' -f <file>");
  if (r.u32() !== 1) throw new Error("the private key file holds more than one key");
  r.bytesField(); // the public key, repeated in the private part
  const p = new Reader(r.bytesField());
  if (p.u32() !== p.u32()) throw new Error("the private key is damaged (its check numbers differ)");
  const type = p.text();
  if (type === "ssh-ed25519") {
    const publicRaw = p.bytesField();
    const seed = p.bytesField().subarray(0, 32);
    // PKCS#8 for an Ed25519 seed (RFC 8410 §7): a fixed prefix, then the 32 bytes.
    const pkcs8 = concat([new Uint8Array(Buffer.from("302e020100300506032b657004220420", "hex")), seed]);
    return ed25519Key(await crypto.subtle.importKey("pkcs8", pkcs8, { name: "Ed25519" }, false, ["sign"]), publicRaw);
  }
  if (type === "ssh-rsa") {
    const [n, e, d, qi, p1, q1] = [0, 1, 2, 3, 4, 5].map(() => unsignedOf(p.bytesField()));
    const dn = bigintOf(d);
    const [dp, dq] = [dn % (bigintOf(p1) - 1n), dn % (bigintOf(q1) - 1n)].map(bytesOf);
    return rsaKey({ kty: "RSA", n: b64url(n), e: b64url(e), d: b64url(d), p: b64url(p1), q: b64url(q1), dp: b64url(dp), dq: b64url(dq), qi: b64url(qi) });
  }
  throw new Error(`the private key is of type ${type}; we support ssh-ed25519 and ssh-rsa`);
}

/**
 * The user's private key, unencrypted, in PEM: OpenSSH's format ("BEGIN OPENSSH PRIVATE KEY", what
 * ssh-keygen writes), PKCS#8 ("BEGIN PRIVATE KEY") or PKCS#1 ("BEGIN RSA PRIVATE KEY"); Ed25519 or
 * RSA. Anything else throws a message in words.
 */
export async function parsePrivateKey(pem: string): Promise<UserKey> {
  const block = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/.exec(pem);
  if (!block) throw new Error("the private key is not in PEM form (-----BEGIN ... PRIVATE KEY-----)");
  const bytes = new Uint8Array(Buffer.from(block[2].replace(/^[A-Za-z-]+:.*$/gm, "").replace(/\s+/g, ""), "base64"));
  const label = block[1];
  if (label === "OPENSSH PRIVATE KEY") return openSshKey(bytes);
  if (label === "PRIVATE KEY") return pkcs8Key(bytes);
  if (label === "RSA PRIVATE KEY") {
    if (/Proc-Type: 4,ENCRYPTED/.test(block[2])) throw new Error("the private key is protected by a passphrase, which we do not support: remove it with ssh-keygen -p -N '' -f <file>");
    return pkcs8Key(pkcs8OfPkcs1(bytes));
  }
  if (label === "ENCRYPTED PRIVATE KEY") throw new Error("the private key is protected by a passphrase, which we do not support: remove it with ssh-keygen -p -N '' -f <file>");
  throw new Error(`the private key is a ${label}; we support Ed25519 and RSA keys (OPENSSH PRIVATE KEY, PRIVATE KEY or RSA PRIVATE KEY)`);
}
