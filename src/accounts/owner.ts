import { sql } from "drizzle-orm";
import { accountOfKey } from "../keys/keys.queries.ts";

/**
 * Who acts on an account's records: an API key (by its hash), for its
 * account, or the account itself (a signed-in person in the dashboard).
 */
export type Owner = { kind: "key"; apiKeyHash: string } | { kind: "account"; accountId: number };

/** The owner as the statements bind it: one of the two set, the other null. */
export const ownerValues = (owner: Owner) =>
  owner.kind === "account"
    ? { accountId: owner.accountId, apiKeyHash: null }
    : { accountId: null, apiKeyHash: owner.apiKeyHash };

/** The owner's account, from whichever of the two `ownerValues` bound. */
export const ownersAccount = sql<number>`coalesce(${sql.placeholder("accountId")}, ${accountOfKey(sql.placeholder("apiKeyHash"))})`;

/** Who adds a record (an animal, a shelter), and when. */
export interface Creator {
  owner: Owner;
  now: number;
}

/** The owner an API request acts as: its key. */
export const keyOwner = (key: { hash: string }): Owner => ({ kind: "key", apiKeyHash: key.hash });
