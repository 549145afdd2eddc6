/** SHA-256 of a text's UTF-8 bytes. */
export async function sha256(text: string): Promise<Uint8Array<ArrayBuffer>> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

/** Hex SHA-256 of a text: how secrets that must be found again (API keys, invite tokens) are stored. */
export async function sha256Hex(text: string): Promise<string> {
  return Array.from(await sha256(text), (byte) => byte.toString(16).padStart(2, "0")).join("");
}
