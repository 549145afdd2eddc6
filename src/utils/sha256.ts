import { utf8Encoder } from "./utf8.ts";
/** SHA-256 of a text's UTF-8 bytes, or of the bytes themselves. */
export async function sha256(data: string | ArrayBuffer): Promise<Uint8Array<ArrayBuffer>> {
  const bytes = typeof data === "string" ? utf8Encoder.encode(data) : data;
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/** Each byte's two hex digits, so hashing a key on every request builds no array of strings. */
const HEX_DIGITS = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, "0"));

/** Hex SHA-256 of a text: how secrets that must be found again (API keys, invite tokens) are stored. */
export async function sha256Hex(text: string): Promise<string> {
  let hex = "";
  for (const byte of await sha256(text)) hex += HEX_DIGITS[byte];
  return hex;
}
