import { fromBase64, toBase64 } from "../utils/base64url.ts";

/*
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is
 * `whsec_` and the base64 of random bytes; a delivery carries `webhook-id`,
 * `webhook-timestamp` (Unix seconds) and `webhook-signature`, `v1,` and the
 * base64 HMAC-SHA256 of `id.timestamp.body` keyed with the secret's bytes.
 * Receivers verify it with the official `standardwebhooks` libraries.
 */

const SECRET_PREFIX = "whsec_";
const SECRET_BYTES = 32;

/** A signing secret: `whsec_` and 32 random bytes in base64 (256 bits, the HMAC-SHA256 key size). */
export function generateWebhookSecret(): string {
  return SECRET_PREFIX + toBase64(crypto.getRandomValues(new Uint8Array(SECRET_BYTES)));
}

/** What a secret looks like, for the document and for tests. */
export const WEBHOOK_SECRET_PATTERN = "^whsec_[A-Za-z0-9+/]{43}=$";

function keyBytes(secret: string): Uint8Array<ArrayBuffer> {
  if (!secret.startsWith(SECRET_PREFIX)) throw new Error("not a webhook signing secret");
  return fromBase64(secret.slice(SECRET_PREFIX.length));
}

export interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

async function sign(secret: string, content: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    keyBytes(secret),
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  const signature = await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(content));
  return `v1,${toBase64(new Uint8Array(signature))}`;
}

/**
 * The Standard Webhooks headers for one attempt to send `body`, signed at
 * `timestampSeconds` with each of `secrets` in order, space-separated: a
 * receiver that knows any one of them accepts the delivery.
 */
export async function signDelivery(
  secrets: readonly string[],
  message: { id: string; timestampSeconds: number; body: string },
): Promise<SignedHeaders> {
  const timestamp = String(message.timestampSeconds);
  const content = `${message.id}.${timestamp}.${message.body}`;
  const signatures = await Promise.all(secrets.map((secret) => sign(secret, content)));
  return {
    "webhook-id": message.id,
    "webhook-timestamp": timestamp,
    "webhook-signature": signatures.join(" "),
  };
}
