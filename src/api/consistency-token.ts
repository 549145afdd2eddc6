import { ExpiringCache } from "../utils/expiring-cache.ts";
import { utf8Decoder, utf8Encoder } from "../utils/utf8.ts";

/**
 * `Consistency-Token`: a D1 bookmark in this service's own encoding, opaque
 * to clients. Local D1 takes any text as a bookmark and a replica reads at
 * whatever bookmark it is given, so a token is sealed: the bookmark, the
 * minute it was issued and an HMAC-SHA256 (keyed with a secret of the
 * environment) of both and of the account of the key it was issued to. A
 * token is a version prefix and those bytes in base32, the bookmark first
 * (an alphabet in ascending order, so tokens of bookmarks of one length
 * sort as the bookmarks do, oldest first).
 */

/** The encoding's version; a token of another version is not one of ours. */
const PREFIX = "ct2_";
/** Crockford's base32 in lower case, in ascending order. */
const ALPHABET = "0123456789abcdefghjkmnpqrstvwxyz";
const MINUTE_BYTES = 4;
/** 128 bits of the HMAC-SHA256: far beyond guessing, and a token a fifth shorter than with all 256. */
const SEAL_BYTES = 16;
/** A token older than this is read as absent: a replica is never that far behind. */
const MAX_AGE_MINUTES = 24 * 60;
/** Far above a token's length (about 130 characters): anything longer is refused unread. */
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
function fromBase32(text: string): Uint8Array<ArrayBuffer> | undefined {
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

/** The bookmark's bytes and the minute after them: what a token carries in the clear. */
function contentOf(bookmark: string, minute: number): Uint8Array<ArrayBuffer> {
  const text = utf8Encoder.encode(bookmark);
  const content = new Uint8Array(text.length + MINUTE_BYTES);
  content.set(text);
  new DataView(content.buffer).setUint32(text.length, minute);
  return content;
}

/** Imported once per secret and isolate. */
const hmacKeys = new Map<string, Promise<CryptoKey>>();

function hmacKey(secret: string): Promise<CryptoKey> {
  let key = hmacKeys.get(secret);
  if (!key) {
    key = crypto.subtle.importKey(
      "raw",
      utf8Encoder.encode(secret),
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign"],
    );
    hmacKeys.set(secret, key);
  }
  return key;
}

/** The seal of the content for the account: the first bytes of the HMAC of both. */
async function sealOf(
  secret: string,
  account: number,
  content: Uint8Array<ArrayBuffer>,
): Promise<Uint8Array<ArrayBuffer>> {
  const label = utf8Encoder.encode(`${account}.`);
  const signed = new Uint8Array(label.length + content.length);
  signed.set(label);
  signed.set(content, label.length);
  const mac = await crypto.subtle.sign("HMAC", await hmacKey(secret), signed);
  return new Uint8Array(mac, 0, SEAL_BYTES);
}

/** Whether two seals are equal, looking at every byte whatever differs first. */
function sameSeal(a: Uint8Array, b: Uint8Array): boolean {
  let difference = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) difference |= (a[i] ?? 0) ^ (b[i] ?? 0);
  return difference === 0;
}

/** Whole minutes since the Unix epoch. */
const minuteAt = (now: number) => Math.floor(now / 60_000);

/**
 * The tokens and openings this isolate made lately, so the same bookmark
 * sealed again (every read between two writes ends at it) or the same token
 * sent back again costs a lookup instead of an HMAC. Keyed by the secret and
 * the account too, so a rotated secret or another account's key finds
 * nothing; 1,000 entries each, the oldest dropped first, none kept past the
 * minute its seal names or the life of the token it opened.
 */
const MEMO_ENTRIES = 1_000;
const sealed = new ExpiringCache<string, string>(MEMO_ENTRIES, 60_000);
const opened = new ExpiringCache<string, { bookmark: string; minute: number }>(
  MEMO_ENTRIES,
  MAX_AGE_MINUTES * 60_000,
);

/** The token a reply to a key of `account` carries for the bookmark after its request's last query. */
export async function sealToken(
  bookmark: string,
  account: number,
  secret: string,
  now: number,
): Promise<string> {
  const minute = minuteAt(now);
  const name = `${secret}\n${account}\n${minute}\n${bookmark}`;
  const known = sealed.get(name, now);
  if (known !== undefined) return known;
  const content = contentOf(bookmark, minute);
  const seal = await sealOf(secret, account, content);
  const token = new Uint8Array(content.length + SEAL_BYTES);
  token.set(content);
  token.set(seal, content.length);
  const text = `${PREFIX}${toBase32(token)}`;
  sealed.set(name, text, now);
  return text;
}

/**
 * What a token sent back by a key of `account` holds: its bookmark; or
 * `expired`, sealed by us more than 24 hours ago (read as no token); or
 * `invalid`, not sealed by us for this account with any of `secrets` (the
 * current one first): forged, altered, truncated or another account's.
 */
export async function openToken(
  token: string,
  account: number,
  secrets: readonly string[],
  now: number,
): Promise<{ bookmark: string } | "expired" | "invalid"> {
  const content = await genuineContent(token, account, secrets, now);
  if (!content) return "invalid";
  if (minuteAt(now) - content.minute > MAX_AGE_MINUTES) return "expired";
  return { bookmark: content.bookmark };
}

/** What the token carries, when one of `secrets` sealed it for `account`. */
async function genuineContent(
  token: string,
  account: number,
  secrets: readonly string[],
  now: number,
): Promise<{ bookmark: string; minute: number } | undefined> {
  if (token.length > MAX_TOKEN_LENGTH || !SHAPE.test(token)) return undefined;
  for (const secret of secrets) {
    const known = opened.get(`${secret}\n${account}\n${token}`, now);
    if (known) return known;
  }
  const bytes = fromBase32(token.slice(PREFIX.length));
  if (!bytes || bytes.length <= MINUTE_BYTES + SEAL_BYTES) return undefined;
  const content = bytes.slice(0, -SEAL_BYTES);
  const seal = bytes.slice(-SEAL_BYTES);
  for (const secret of secrets) {
    if (!sameSeal(await sealOf(secret, account, content), seal)) continue;
    const bookmarkLength = content.length - MINUTE_BYTES;
    const carried = {
      bookmark: utf8Decoder.decode(content.subarray(0, bookmarkLength)),
      minute: new DataView(content.buffer).getUint32(bookmarkLength),
    };
    opened.set(`${secret}\n${account}\n${token}`, carried, now);
    return carried;
  }
  return undefined;
}

/** What a token looks like, for the document: one for a bookmark of local D1's form (its seal made up). */
export const EXAMPLE_TOKEN = `${PREFIX}${toBase32(
  Uint8Array.from([
    ...contentOf("00000000-0000002a-00000000-00000000000000000000000000000000", 29_500_000),
    ...Array.from({ length: SEAL_BYTES }, (_, i) => (i * 37 + 11) & 255),
  ]),
)}`;
