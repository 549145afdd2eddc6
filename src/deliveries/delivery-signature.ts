import { toBase64 } from "../utils/base64url.ts";
import { utf8Encoder } from "../utils/utf8.ts";
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

/**
 * Signs deliveries with an endpoint's secrets, each imported as an HMAC key
 * once rather than on every attempt (an import costs about what a signature
 * does). It holds the keys of the secrets it was last given, no others: a
 * rotated-out secret's key goes once a delivery is signed without it.
 */
export class DeliverySigner {
  readonly #keys = new Map<string, Promise<CryptoKey>>();

  /**
   * The Standard Webhooks headers for one attempt to send `body`, signed at
   * `timestampSeconds` with each of `secrets` in order, space-separated: a
   * receiver that knows any one of them accepts the delivery.
   */
  async sign(
    secrets: readonly string[],
    message: { id: string; timestampSeconds: number; body: string },
  ): Promise<SignedHeaders> {
    const timestamp = String(message.timestampSeconds);
    const content = utf8Encoder.encode(`${message.id}.${timestamp}.${message.body}`);
    const signatures = await Promise.all(
      secrets.map(async (secret) => {
        const signature = await crypto.subtle.sign("HMAC", await this.#key(secret), content);
        return `v1,${toBase64(new Uint8Array(signature))}`;
      }),
    );
    for (const secret of this.#keys.keys()) {
      if (!secrets.includes(secret)) this.#keys.delete(secret);
    }
    return {
      "webhook-id": message.id,
      "webhook-timestamp": timestamp,
      "webhook-signature": signatures.join(" "),
    };
  }

  #key(secret: string): Promise<CryptoKey> {
    let key = this.#keys.get(secret);
    if (!key) {
      key = crypto.subtle.importKey(
        "raw",
        secretKeyBytes(secret),
        { name: "HMAC", hash: "SHA-256" },
        false,
        ["sign"],
      );
      this.#keys.set(secret, key);
      // A failed import is not kept: the next attempt imports afresh.
      key.catch(() => this.#keys.delete(secret));
    }
    return key;
  }
}
