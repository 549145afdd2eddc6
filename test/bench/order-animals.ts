/**
 * The animals the order bench adopts, in both the real Worker's and the
 * floor's database. Free of any runtime's types: the Node bench, the floor
 * Worker and the Worker tests all read it.
 */

/**
 * Animals seeded for the order targets, with ids 1 to ORDER_ANIMALS, all
 * available. Each measured unit adopts one, so this must outlast every load
 * of a target: 100,000 is several times what a local run gets through (at a
 * thousand orders a second, the default rounds use about 23,000), and the
 * walk caps each load at what is left anyway.
 */
export const ORDER_ANIMALS = 100_000;

/** The API key the floor acts for: the floor's database holds it, with an account, as D1 holds real keys. */
export const FLOOR_KEY_HASH = "0".repeat(64);

/** SQL that adds the animals (one statement, before the servers start, so ids are 1 to `count`). */
export function orderAnimalsSql(count: number = ORDER_ANIMALS): string {
  return `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
INSERT INTO pets (id, name, category_id, status, created_at)
SELECT i, 'Bench adoptee ' || i, 1, 'available', 0 FROM n;`;
}

/** SQL that gives the floor's database the account and key its order statements look up. */
export function floorKeySql(): string {
  return `INSERT INTO accounts (id, email, password_hash, plan, created_at)
VALUES (1, 'bench-floor@petstore.invalid', '', 'free', 0);
INSERT INTO api_keys (hash, account_id, last_four, created_at)
VALUES ('${FLOOR_KEY_HASH}', 1, 'flor', 0);`;
}

/**
 * Hands out the seeded animals in order, one per adoption, across every
 * load of one target: no animal is ordered twice, and `requestBudget` keeps
 * a load from asking for more than are left.
 */
export class OrderWalk {
  #next = 1;
  readonly #last: number;

  constructor(count: number = ORDER_ANIMALS) {
    this.#last = count;
  }

  /** The next animal to order. */
  nextPetId(): number {
    if (this.#next > this.#last) throw new Error("the order bench ran out of seeded animals");
    return this.#next++;
  }

  /**
   * Most requests (two per adoption) one load may send. Each connection may
   * have built its next order, and have one in flight, beyond the count the
   * load stops at, so those are held back.
   */
  requestBudget(connections: number): number {
    const left = this.#last - this.#next + 1;
    return 2 * Math.max(0, left - 2 * connections);
  }
}
