/**
 * The animals the order rows adopt, in both the real Worker's and the
 * floor's database. Free of any runtime's types: the Node bench, the floor
 * Worker and the Worker tests all read it.
 */

/**
 * Animals seeded for the order rows, with ids 1 to ORDER_ANIMALS, all
 * available. Each measured unit orders one, so this must outlast every load
 * of the order rows: 100,000 is several times what a local run gets through
 * (at a thousand orders a second, the default rounds use about 15,000), and
 * the walk caps each load at what is left anyway.
 */
export const ORDER_ANIMALS = 100_000;

/** SQL that adds the animals (one statement, before the servers start, so ids are 1 to `count`). */
export function orderAnimalsSql(count: number = ORDER_ANIMALS): string {
  return `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
INSERT INTO pets (id, name, category_id, status, created_at)
SELECT i, 'Bench adoptee ' || i, 1, 'available', 0 FROM n;`;
}

/**
 * Hands out seeded animals in order, one per order placed, across every
 * load of every row that orders on one server: no animal is ordered twice,
 * and `requestBudget` keeps a load from asking for more than are left.
 */
export class OrderWalk {
  #next: number;
  readonly #last: number;

  /** The animals from `first` to `last`, both included. */
  constructor(first: number, last: number = ORDER_ANIMALS) {
    this.#next = first;
    this.#last = last;
  }

  /** The next animal to order. */
  nextPetId(): number {
    if (this.#next > this.#last) throw new Error("the order rows ran out of seeded animals");
    return this.#next++;
  }

  /**
   * Most requests one load may send when each unit is `perUnit` requests and
   * orders one animal. Each connection may have built its next order, and
   * have one in flight, beyond the count the load stops at, so those are
   * held back.
   */
  requestBudget(connections: number, perUnit: number): number {
    const left = this.#last - this.#next + 1;
    return perUnit * Math.max(0, left - 2 * connections);
  }
}
