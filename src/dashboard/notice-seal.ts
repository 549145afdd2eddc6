import { fromBase64Url, toBase64Url } from "../utils/base64url.ts";

const encoder = new TextEncoder();
const decoder = new TextDecoder();
/** Names what the derived key is for, so it can never stand in for a key derived for anything else. */
const PURPOSE = encoder.encode("petstore dashboard session notice v1");

/**
 * AES-256-GCM key derived (HKDF-SHA256) from the session cookie's token. D1
 * holds only that token's hash, so what it stores cannot be opened from D1.
 */
async function noticeKey(token: string): Promise<CryptoKey> {
  const material = await crypto.subtle.importKey("raw", encoder.encode(token), "HKDF", false, [
    "deriveKey",
  ]);
  return crypto.subtle.deriveKey(
    { name: "HKDF", hash: "SHA-256", salt: new Uint8Array(), info: PURPOSE },
    material,
    { name: "AES-GCM", length: 256 },
    false,
    ["encrypt", "decrypt"],
  );
}

/**
 * `<iv>.<ciphertext>`, base64url. The session's id is authenticated with it,
 * so a sealed notice moved to another session's row does not open there.
 */
export async function sealNotice(token: string, sessionId: string, text: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const ciphertext = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: encoder.encode(sessionId) },
    await noticeKey(token),
    encoder.encode(text),
  );
  return `${toBase64Url(iv)}.${toBase64Url(new Uint8Array(ciphertext))}`;
}

/** The sealed text, or undefined when this token and session did not seal it or it was altered. */
export async function openNotice(
  token: string,
  sessionId: string,
  sealed: string,
): Promise<string | undefined> {
  const [ivText = "", ciphertextText = ""] = sealed.split(".");
  const iv = fromBase64Url(ivText) ?? new Uint8Array();
  const ciphertext = fromBase64Url(ciphertextText);
  if (iv.byteLength !== 12 || !ciphertext) return undefined;
  try {
    const text = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv, additionalData: encoder.encode(sessionId) },
      await noticeKey(token),
      ciphertext,
    );
    return decoder.decode(text);
  } catch {
    return undefined;
  }
}
