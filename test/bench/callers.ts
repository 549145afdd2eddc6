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

/** Limits no bench run can reach, so every measured request is admitted yet still counted. */
export const BENCH_LIMITS = { perMinute: 100_000_000, perDay: 1_000_000_000 };

export const CALLERS: Readonly<Record<Caller, Account>> = {
  shopper: { email: "bench@petstore.invalid", floorKeyHash: "0".repeat(64) },
  hooks: { email: "bench-hooks@petstore.invalid", floorKeyHash: "1".repeat(64) },
};

/**
 * SQL that makes each caller's account, for a database that holds what
 * they own before their keys are made (the API's keys are then made
 * through its admin endpoint, which finds the account by its email).
 * Account ids are the database's to choose, so a test's database that
 * holds other accounts takes it too. The accounts are on Enterprise, as
 * their keys are: its caps (500 shelters) leave room for what the rows make.
 */
export function callerAccountsSql(): string {
  const { perMinute, perDay } = BENCH_LIMITS;
  return Object.values(CALLERS)
    .map(
      ({ email }) =>
        `INSERT INTO accounts (email, password_hash, plan, per_minute, per_day, created_at) VALUES ('${email}', '', 'enterprise', ${perMinute}, ${perDay}, 0);`,
    )
    .join("\n");
}

/** SQL that gives the floor's database, after the accounts, the key it acts for in each. */
export function floorKeysSql(): string {
  return Object.values(CALLERS)
    .map(
      ({ email, floorKeyHash }) =>
        `INSERT INTO api_keys (hash, account_id, last_four, created_at)
SELECT '${floorKeyHash}', id, 'flor', 0 FROM accounts WHERE email = '${email}';`,
    )
    .join("\n");
}
