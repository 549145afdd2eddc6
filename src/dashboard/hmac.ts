import { fromBase64Url, toBase64Url } from "../utils/base64url.ts";

const encoder = new TextEncoder();
// The resolved key, not its promise: a promise must not be shared across requests in workerd.
let cached: { secret: string; key: CryptoKey } | undefined;

/** The dashboard's secret must be set (wrangler secret / .dev.vars); the configuration drops a short one. */
async function hmacKey(secret: string | undefined): Promise<CryptoKey> {
  if (!secret) throw new Error("SESSION_SECRET is missing or shorter than 32 characters");
  if (cached?.secret !== secret) {
    const key = await crypto.subtle.importKey(
      "raw",
      encoder.encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    cached = { secret, key };
  }
  return cached.key;
}

/** The purpose is signed too, so a signature made for one use never passes for another. */
function signedText(purpose: string, message: string): Uint8Array {
  return encoder.encode(`${purpose}\n${message}`);
}

/** HMAC-SHA256 of the message, base64url. */
export async function sign(
  secret: string | undefined,
  purpose: string,
  message: string,
): Promise<string> {
  const signature = await crypto.subtle.sign(
    "HMAC",
    await hmacKey(secret),
    signedText(purpose, message),
  );
  return toBase64Url(new Uint8Array(signature));
}

/** Checks a signature in constant time (WebCrypto's verify compares without early exit). */
export async function verify(
  secret: string | undefined,
  purpose: string,
  message: string,
  signature: string,
): Promise<boolean> {
  const bytes = fromBase64Url(signature);
  if (!bytes) return false;
  return crypto.subtle.verify("HMAC", await hmacKey(secret), bytes, signedText(purpose, message));
}
