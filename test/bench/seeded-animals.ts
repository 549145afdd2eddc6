import { profileSql } from "./animal-profiles.ts";
import { BENCH_SHELTERS, sheltersSql } from "./bench-shelters.ts";
import { CALLERS } from "./callers.ts";

/**
 * The animals the rows use up, one per unit, made with SQL in both the real
 * Worker's and the floor's database before the servers start: those the
 * order rows adopt, and those the deletion row deletes. Free of any
 * runtime's types: the Node bench, the floor Worker and the Worker tests
 * all read it.
 */

/**
 * Animals seeded for the order rows, with ids 1 to ORDER_ANIMALS, all
 * available. Each measured unit orders one, so this must outlast every load
 * of the order rows: 100,000 is several times what a local run gets through
 * (at a thousand orders a second, the default rounds use about 15,000), and
 * the walk caps each load at what is left anyway.
 */
export const ORDER_ANIMALS = 100_000;

/**
 * Animals seeded for the deletion row, right after those: each measured
 * DELETE takes one. 40,000 is several times what a local run deletes (at a
 * thousand a second, the default rounds delete about 12,000); the walk caps
 * each load at what is left.
 */
export const DEPARTING_ANIMALS = 40_000;

/**
 * SQL that adds the animals to order (one statement, before the servers
 * start, so ids are 1 to `count`), with profiles drawn from their ids
 * (animal-profiles.ts), living in the shopper's shelters (`shopperSheltersSql`).
 * They are the first animals every listing meets, so a listing by profile
 * finds its page among them. Their names are not in the search index, so
 * they have no breed either: neither `q` nor `breed` finds them.
 */
export function orderAnimalsSql(count: number = ORDER_ANIMALS): string {
  const profile = profileSql("i", BENCH_SHELTERS, { breed: false });
  return `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${count})
INSERT INTO pets (id, name, category_id, status, created_at, ${profile.columns})
SELECT i, 'Bench adoptee ' || i, 1, 'available', 0, ${profile.values} FROM n;`;
}

/**
 * SQL that gives the shopper's account (which must be there: see
 * `callerAccountsSql`) its shelters, ids 1 to BENCH_SHELTERS: those the
 * shelters' listing reads, and the animals to order live in.
 */
export function shopperSheltersSql(): string {
  const shopper = `(SELECT id FROM accounts WHERE email = '${CALLERS.shopper.email}')`;
  return sheltersSql(1, BENCH_SHELTERS, shopper);
}

/**
 * SQL that adds the animals to delete, ids `first` to `last`, owned by the
 * shopper's account (which must be there: see `callerAccountsSql`) and in
 * the search index, as the create route leaves them; two statements.
 */
export function departingAnimalsSql(first: number, last: number): string {
  const shopper = `(SELECT id FROM accounts WHERE email = '${CALLERS.shopper.email}')`;
  return `WITH RECURSIVE n(i) AS (SELECT ${first} UNION ALL SELECT i + 1 FROM n WHERE i < ${last})
INSERT INTO pets (id, name, category_id, status, account_id, created_at)
SELECT i, 'Departing ' || i, 2, 'available', ${shopper}, 0 FROM n;
INSERT INTO pet_search (rowid, name) SELECT id, name FROM pets WHERE id BETWEEN ${first} AND ${last};`;
}

/**
 * Hands out seeded animals in order, one per unit that uses one up, across
 * every load of every row that takes them on one server: none is taken
 * twice, and `requestBudget` keeps a load from asking for more than are left.
 */
export class AnimalWalk {
  #next: number;
  readonly #last: number;

  /** The animals from `first` to `last`, both included. */
  constructor(first: number, last: number) {
    this.#next = first;
    this.#last = last;
  }

  /** The next animal to take. */
  nextPetId(): number {
    if (this.#next > this.#last) throw new Error("the rows ran out of seeded animals");
    return this.#next++;
  }

  /**
   * Most requests one load may send when each unit is `perUnit` requests and
   * takes one animal. Each connection may have built its next unit, and
   * have one in flight, beyond the count the load stops at, so those are
   * held back.
   */
  requestBudget(connections: number, perUnit: number): number {
    const left = this.#last - this.#next + 1;
    return perUnit * Math.max(0, left - 2 * connections);
  }
}

/** The walks of one server: the animals to order, and those to delete. */
export interface AnimalWalks {
  adoptable: AnimalWalk;
  departing: AnimalWalk;
}

/** The walks over what the bench seeds in each database (ids as the SQL above gives them). */
export function benchAnimalWalks(): AnimalWalks {
  return {
    adoptable: new AnimalWalk(1, ORDER_ANIMALS),
    departing: new AnimalWalk(ORDER_ANIMALS + 1, ORDER_ANIMALS + DEPARTING_ANIMALS),
  };
}
