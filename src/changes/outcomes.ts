/** What a change's run answers, and what a keyed run claims. */

/** What a request with an Idempotency-Key claims: the key, scoped to the API key that sent it. */
export interface Claim {
  apiKeyHash: string;
  idempotencyKey: string;
  /** The operationId: one key used on two operations is refused. */
  operation: string;
  /** Fingerprint of the request body: the same key with another body is refused. */
  requestHash: string;
  now: number;
}

/** A response as it was sent: its status and its JSON body. */
export interface StoredResponse {
  status: number;
  body: unknown;
}

/** This request made its change, without a key: `body` is what it answers. */
export interface Made<T> {
  kind: "made";
  body: T;
}

/** This request made its change; the response it sends is the one stored with its key. */
export interface Stored {
  kind: "stored";
  response: StoredResponse;
}

/** An earlier request with this key and body made the change: its response, again. */
export interface Replayed {
  kind: "replayed";
  response: StoredResponse;
}

/** The key was used with another body or on another operation. */
export interface Reused {
  kind: "reused";
}

/**
 * What a change answers: what it made (or, with a key, the reply it stored),
 * or `Refusal` when it changed nothing; with a key, an earlier request's
 * reply instead (`replayed`), or `reused` when the key was used for another
 * request.
 */
export type Outcome<Body, Refusal = never> = Made<Body> | Stored | Refusal | Replayed | Reused;
