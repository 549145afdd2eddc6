import type { KeyRecord } from "./keys/key-record.ts";

/** The key a request was admitted with; only its hash and last four characters are ever kept. */
export interface AuthenticatedKey {
  hash: string;
  lastFour: string;
  record: KeyRecord;
}

/** Who sent the request, as far as the key in it tells. */
export type Caller =
  | { kind: "key"; key: AuthenticatedKey }
  | { kind: "anonymous"; keySent: boolean };

export interface AppEnv {
  Bindings: Env;
  Variables: {
    requestId: string;
    caller: Caller;
    apiKey: AuthenticatedKey;
  };
}
