/**
 * `Consistency-Token`: a D1 bookmark in this service's own encoding, opaque
 * to clients. Local D1 takes any text as a bookmark, so the encoding itself
 * must tell a token this service wrote from anything else: a version prefix,
 * the bookmark in base32 (an alphabet in ascending order, so tokens of
 * bookmarks of one length sort as the bookmarks do, oldest first), and a
 * check of the bookmark that a truncated or altered token fails.
 */

/** The encoding's version; a token of another version is not one of ours. */
const PREFIX = "ct1_";
/** Crockford's base32 in lower case, in ascending order. */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const CHECK_CHARS = 4;
/** Far above a bookmark's length (59 characters): anything longer is refused unread. */
const MAX_TOKEN_LENGTH = 400;

/** The pattern of a token, as the document states it. */
export const CONSISTENCY_TOKEN_PATTERN = `^${PREFIX}[0-9a-hjkmnp-tv-z]+$`;
const SHAPE = new RegExp(CONSISTENCY_TOKEN_PATTERN);

function toBase32(bytes: Uint8Array): string {
  let text = "";
  let buffer = 0;
  let bits = 0;
  for (const byte of bytes) {
    buffer = (buffer << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      text += ALPHABET[(buffer >> bits) & 31];
    }
    buffer &= (1 << bits) - 1;
  }
  return bits > 0 ? text + ALPHABET[(buffer << (5 - bits)) & 31] : text;
}

/** The bytes, or undefined when the text is not what `toBase32` writes for some bytes. */
function fromBase32(text: string): Uint8Array | undefined {
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  for (const char of text) {
    const value = ALPHABET.indexOf(char);
    if (value < 0) return undefined;
    buffer = (buffer << 5) | value;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      bytes.push((buffer >> bits) & 255);
    }
    buffer &= (1 << bits) - 1;
  }
  // What `toBase32` writes ends in fewer than 5 spare bits, all zero.
  return bits < 5 && buffer === 0 ? Uint8Array.from(bytes) : undefined;
}

/** 20 bits of FNV-1a over the bookmark, as four base32 characters. */
function checkOf(bytes: Uint8Array): string {
  let hash = 0x811c9dc5;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193) >>> 0;
  let text = "";
  for (let i = CHECK_CHARS - 1; i >= 0; i--) text += ALPHABET[(hash >>> (12 + i * 5)) & 31];
  return text;
}

/** The token a reply carries for the bookmark after its request's last query. */
export function consistencyToken(bookmark: string): string {
  const bytes = new TextEncoder().encode(bookmark);
  return `${PREFIX}${toBase32(bytes)}${checkOf(bytes)}`;
}

/** The bookmark a token carries, or undefined when the token is not one this service wrote. */
export function bookmarkOf(token: string): string | undefined {
  if (token.length > MAX_TOKEN_LENGTH || !SHAPE.test(token)) return undefined;
  const body = token.slice(PREFIX.length, -CHECK_CHARS);
  const bytes = fromBase32(body);
  if (!bytes || bytes.length === 0 || checkOf(bytes) !== token.slice(-CHECK_CHARS)) {
    return undefined;
  }
  return new TextDecoder().decode(bytes);
}

/** What a token looks like, for the document: one for a bookmark of local D1's form. */
export const EXAMPLE_TOKEN = consistencyToken(
  "00000000-0000002a-00000000-00000000000000000000000000000000",
);
