/** Unpadded base64url, for tokens that travel in cookies and form fields. */
export function toBase64Url(bytes: Uint8Array): string {
  let binary = "";
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replaceAll("+", "-").replaceAll("/", "_").replace(/=+$/, "");
}

/** The bytes, or null when the text is not base64url. */
export function fromBase64Url(text: string): Uint8Array<ArrayBuffer> | null {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) return null;
  try {
    const binary = atob(text.replaceAll("-", "+").replaceAll("_", "/"));
    return Uint8Array.from(binary, (char) => char.charCodeAt(0));
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
