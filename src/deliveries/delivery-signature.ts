import { toBase64 } from "../utils/base64url.ts";
import { secretKeyBytes } from "../webhooks/webhook-secrets.ts";

/*
 * Standard Webhooks signing (https://www.standardwebhooks.com): a delivery
 * carries `webhook-id`, `webhook-timestamp` (Unix seconds) and
 * `webhook-signature`, `v1,` and the base64 HMAC-SHA256 of
 * `id.timestamp.body` keyed with the secret's bytes. Receivers verify it
 * with the official `standardwebhooks` libraries.
 */

interface SignedHeaders {
  "webhook-id": string;
  "webhook-timestamp": string;
  "webhook-signature": string;
}

async function sign(secret: string, content: string): Promise<string> {
  const key = await crypto.subtle.importKey(
    "raw",
    secretKeyBytes(secret),
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
