/**
 * Who the bench's requests act for. Free of any runtime's types: the Node
 * bench, the floor Worker and the Worker tests all read it.
 *
 * The shopper browses, adds animals and orders them; the hooks account owns
 * the webhook endpoints, which want only its own orders' events, and it
 * orders nothing: no row's change ever has an event an endpoint wants, so
 * no delivery runs behind a measured request but the ones a row asks for.
 */
export type Caller = "shopper" | "hooks";

interface Account {
  email: string;
  /** The API key the floor acts for: the floor's database holds it, as D1 holds real keys. */
  floorKeyHash: string;
}

export const CALLERS: Readonly<Record<Caller, Account>> = {
  shopper: { email: "bench@petstore.invalid", floorKeyHash: "0".repeat(64) },
  hooks: { email: "bench-hooks@petstore.invalid", floorKeyHash: "1".repeat(64) },
};

/**
 * SQL that gives the floor's database each caller's account and the key the
 * floor acts for. Account ids are the database's to choose, so a test's
 * database that holds other accounts takes it too.
 */
export function floorAccountsSql(): string {
  return Object.values(CALLERS)
    .map(
      ({ email, floorKeyHash }) =>
        `INSERT INTO accounts (email, password_hash, plan, created_at) VALUES ('${email}', '', 'free', 0);
INSERT INTO api_keys (hash, account_id, last_four, created_at)
SELECT '${floorKeyHash}', id, 'flor', 0 FROM accounts WHERE email = '${email}';`,
    )
    .join("\n");
}
