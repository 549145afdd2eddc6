/**
 * API key format, shared by the Worker and the operator command (which runs
 * it under Node's type stripping, hence erasable syntax only).
 */
import { sha256Hex } from "../utils/sha256.ts";

type KeyPrefix = "ps_live_" | "ps_test_";

const ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const SECRET_LENGTH = 32;
const KEY_PATTERN = /^ps_(?:live|test)_[0-9A-Za-z]{32}$/;

export function isWellFormedKey(candidate: string): boolean {
  return KEY_PATTERN.test(candidate);
}

/** A new key: the prefix, then 32 base62 characters (~190 bits) drawn without modulo bias. */
export function generateApiKey(prefix: KeyPrefix): string {
  let secret = "";
  while (secret.length < SECRET_LENGTH) {
    for (const byte of crypto.getRandomValues(new Uint8Array(48))) {
      // 248 = 4 × 62: bytes at or above it would favour the first characters.
      if (byte < 248 && secret.length < SECRET_LENGTH) secret += ALPHABET[byte % 62];
    }
  }
  return prefix + secret;
}

/** Hex SHA-256 of the key: the only form in which a key is stored. */
export function hashApiKey(key: string): Promise<string> {
  return sha256Hex(key);
}

export function lastFourOf(key: string): string {
  return key.slice(-4);
}

/** Where a key's record lives in KV. */
export function keyRecordName(hash: string): string {
  return `key:${hash}`;
}
