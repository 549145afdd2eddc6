import type { KeyRecord } from "./keys/key-record.ts";
import type { Services } from "./services.ts";

/** The key a request was admitted with; only its hash and last four characters are ever kept. */
export interface AuthenticatedKey {
  hash: string;
  lastFour: string;
  record: KeyRecord;
}

/**
 * Who sent the request, as far as the key in it tells: a working key; a key
 * that exists but no longer works (revoked or past its grace period); or no
 * usable key at all (none, malformed, or one that does not exist).
 */
export type Caller =
  | { kind: "key"; key: AuthenticatedKey }
  | { kind: "dead"; key: AuthenticatedKey }
  | { kind: "anonymous"; keySent: boolean };

export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    services: Services;
    caller: Caller;
    apiKey: AuthenticatedKey;
    /** The limiter's answer as headers, for the response chain to put on whatever reply follows. */
    rateLimitHeaders?: Record<string, string>;
  };
}
