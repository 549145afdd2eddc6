import { fromBase64Url, toBase64Url } from "../utils/base64url.ts";

/**
 * The most one PBKDF2 call may do on Cloudflare: deployed Workers refuse more
 * ("iteration counts above 100000 are not supported"), although local workerd
 * does not enforce that cap, so a test pins the number instead.
 */
export const PBKDF2_ITERATIONS = 100_000;
export const PASSWORD_MIN_LENGTH = 12;
export const PASSWORD_MAX_LENGTH = 1_000;
/** What the forms that set a password say it needs. */
export const NEW_PASSWORD_HINT = `At least ${PASSWORD_MIN_LENGTH} characters, and not a common password: a few unrelated words make a good one.`;
const SALT_BYTES = 16;
const HASH_BITS = 256;
const SCHEME = "pbkdf2-sha256";

async function derive(
  password: string,
  salt: Uint8Array<ArrayBuffer>,
  iterations: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const material = await crypto.subtle.importKey(
    "raw",
    new TextEncoder().encode(password.normalize("NFC")),
    "PBKDF2",
    false,
    ["deriveBits"],
  );
  const bits = await crypto.subtle.deriveBits(
    { name: "PBKDF2", hash: "SHA-256", salt, iterations },
    material,
    HASH_BITS,
  );
  return new Uint8Array(bits);
}

/** `pbkdf2-sha256$<iterations>$<salt>$<hash>`: the parameters travel with the hash, so they can change later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = crypto.getRandomValues(new Uint8Array(SALT_BYTES));
  const hash = await derive(password, salt, PBKDF2_ITERATIONS);
  return [SCHEME, PBKDF2_ITERATIONS, toBase64Url(salt), toBase64Url(hash)].join("$");
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, iterationsText, saltText, hashText] = stored.split("$");
  const iterations = Number(iterationsText);
  const salt = fromBase64Url(saltText ?? "");
  const expected = fromBase64Url(hashText ?? "");
  if (scheme !== SCHEME || !Number.isInteger(iterations) || !salt || !expected) return false;
  const actual = await derive(password, salt, iterations);
  return (
    actual.byteLength === expected.byteLength && crypto.subtle.timingSafeEqual(actual, expected)
  );
}

let decoy: string | undefined;

/** Spends the same time as a real check, so a sign-in for an unknown email is not told apart by speed. */
export async function verifyAgainstDecoy(password: string): Promise<false> {
  decoy ??= await hashPassword("decoy password for unknown accounts");
  await verifyPassword(password, decoy);
  return false;
}
