// A webhook from Shopify is trusted only with a valid X-Shopify-Hmac-Sha256: the base64 HMAC-SHA256
// of the raw body with the app's API secret key (shopify.dev/docs/apps/build/webhooks/subscribe/
// https#step-5-verify-the-webhook). Checked with WebCrypto's verify, which compares in constant
// time, over the bytes exactly as they came (before any decoding).

/** The header's bytes, or null when it is not base64 of a SHA-256 HMAC (32 bytes). */
function decodeBase64(value: string): Uint8Array | null {
  if (!/^[A-Za-z0-9+/]{43}=$/.test(value.trim())) return null;
  const text = atob(value.trim());
  return Uint8Array.from(text, (ch) => ch.charCodeAt(0));
}

export async function verifyShopifyHmac(secret: string, body: Uint8Array, header: string | undefined | null): Promise<boolean> {
  const signature = header ? decodeBase64(header) : null;
  if (!signature) return false;
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["verify"]);
  return crypto.subtle.verify("HMAC", key, signature, body);
}
