import { type SQL, sql } from "drizzle-orm";
import type { SQLiteColumn } from "drizzle-orm/sqlite-core";
import { normaliseEmail } from "../accounts/accounts.queries.ts";
import { keyOwner, type Owner, ownersAccount, ownerValues } from "../accounts/owner.ts";
import { accounts } from "../db/schema.ts";

/**
 * Who may change a record of the catalogue (an animal, a category): the
 * account whose key made it, through any of its keys or its own dashboard.
 * A record a migration made (the seeded categories) has no owner in its
 * row, since a migration cannot know the environment's operator account; a
 * null owner means that account.
 */

/** The caller's account: its key's, bound as `apiKeyHash`, or the account bound as `accountId`. */
export const callersAccount = ownersAccount;

/** The environment's operator account, by its email bound as `operatorEmail` (found by the index on lower(email)). */
const operatorAccount = sql<
  number | null
>`(SELECT ${accounts.id} FROM ${accounts} WHERE lower(${accounts.email}) = ${sql.placeholder("operatorEmail")})`;

/** True when the record whose owner is in `owner` belongs to the caller's account. */
export function ownedByCaller(owner: SQLiteColumn): SQL<boolean> {
  return sql<boolean>`coalesce(${owner}, ${operatorAccount}) = ${callersAccount}`;
}

/** Who is asking to change a record: the caller (a key, or a signed-in account), and the environment's operator account. */
export type Changer = Owner & { operatorEmail: string };

/** The changer of an API request: its key, and the configuration that names the operator account. */
export function changerOf(key: { hash: string }, config: { operatorEmail: string }): Changer {
  return { ...keyOwner(key), operatorEmail: config.operatorEmail };
}

/** The values `callersAccount` and `ownedByCaller` bind. */
export function changerValues(changer: Changer) {
  return { ...ownerValues(changer), operatorEmail: normaliseEmail(changer.operatorEmail) };
}
