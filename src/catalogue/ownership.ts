import { type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { normaliseEmail } from "../accounts/accounts.queries.ts";
import { accounts } from "../db/schema.ts";
import { accountOfKey } from "../keys/keys.queries.ts";

/**
 * Who may change a record of the catalogue (an animal, a category): the
 * account whose key made it. A record a migration made (the seeded
 * categories) has no owner in its row, since a migration cannot know the
 * environment's operator account; a null owner means that account.
 */

/** The account of the caller's key, bound as `apiKeyHash`. */
export const callersAccount = accountOfKey(sql.placeholder("apiKeyHash"));

/** The environment's operator account, by its email bound as `operatorEmail` (found by the index on lower(email)). */
const operatorAccount = sql<
  number | null
>`(SELECT ${accounts.id} FROM ${accounts} WHERE lower(${accounts.email}) = ${sql.placeholder("operatorEmail")})`;

/** True when the record whose owner is in `owner` belongs to the caller's account. */
export function ownedByCaller(owner: SQLiteColumn): SQL<boolean> {
  return sql<boolean>`coalesce(${owner}, ${operatorAccount}) = ${callersAccount}`;
}

/** Who is asking to change a record: the caller's key, and the environment's operator account. */
export interface Changer {
  apiKeyHash: string;
  operatorEmail: string;
}

/** The changer of a request: its key, and the configuration that names the operator account. */
export function changerOf(key: { hash: string }, config: { operatorEmail: string }): Changer {
  return { apiKeyHash: key.hash, operatorEmail: config.operatorEmail };
}

/** The values `callersAccount` and `ownedByCaller` bind. */
export function changerValues({ apiKeyHash, operatorEmail }: Changer) {
  return { apiKeyHash, operatorEmail: normaliseEmail(operatorEmail) };
}
