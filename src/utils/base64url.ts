/** Standard padded base64, as digests and signatures are written in headers. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

/** The bytes of standard base64; throws when the text is not base64. */
export function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
}

/** Unpadded base64url, for tokens that travel in cookies and form fields. */
export function toBase64Url(bytes: Uint8Array): string {
  return toBase64(bytes).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The bytes, or null when the text is not base64url. */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    return fromBase64(text.replaceAll("-", "+").replaceAll("_", "/"));
  } catch {
    return null;
  }
}

/** A random secret for a cookie or a link: 32 bytes, 43 characters of base64url. */
export function newSecretToken(): string {
  return randomToken(32);
}

/** Whether the text could be a token `newSecretToken` made; anything else is not looked up. */
export function isSecretToken(text: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(text);
}

export function randomToken(byteLength: number): string {
  return toBase64Url(crypto.getRandomValues(new Uint8Array(byteLength)));
}
