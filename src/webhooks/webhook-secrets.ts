import { fromBase64, toBase64 } from "../utils/base64url.ts";

/*
 * An endpoint's signing secrets, in the Standard Webhooks form
 * (https://www.standardwebhooks.com): `whsec_` and the base64 of random
 * bytes. A rotated secret keeps signing deliveries for 24 hours beside its
 * successor, so receivers switch without a gap.
 */

const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;

/** A signing secret: `whsec_` and 32 random bytes in base64 (256 bits, the HMAC-SHA256 key size). */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

/** What a secret looks like, for the document and for tests. */
export const WEBHOOK_SECRET_PATTERN = "^whsec_[A-Za-z0-9+/]{43}=$";

/** The bytes an HMAC is keyed with: the base64 after `whsec_`. */
export function secretKeyBytes(secret: string): Uint8Array<ArrayBuffer> {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error("not a webhook signing secret");
  return fromBase64(secret.slice(SECRET_PREFIX.length));
}

/** A secret rotated away, and when deliveries stop being signed with it. */
interface PreviousSecret {
  secret: string;
  until: number;
}

/** How long a rotated secret still signs deliveries. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** The most secrets a delivery is signed with: the newest and the two before it. */
export const MAX_SIGNING_SECRETS = 3;

/** The secrets rotated away that still sign deliveries at `now`, newest first (stored as JSON). */
export function stillSigning(previous: string, now: number): PreviousSecret[] {
  return (JSON.parse(previous) as PreviousSecret[])
    .filter((old) => old.until > now)
    .slice(0, MAX_SIGNING_SECRETS - 1);
}

/** Every secret a delivery at `now` is signed with: the current one first, then those still signing. */
export function signingSecrets(current: string, previous: string, now: number): string[] {
  return [current, ...stillSigning(previous, now).map((old) => old.secret)];
}
