import type { Caller } from "./callers.ts";
import type { Flow, Send } from "./flows.ts";
import type { PhotoPlaces } from "./photo-places.ts";
import type { AnimalWalks } from "./seeded-animals.ts";

/** The shape of a row of the bench (rows.ts), and what seeding gives the rows to work on. */

/**
 * What seeding left on one server for the rows to work on (see seeding.ts),
 * and the walks over the animals its database was given to use up: those
 * the order rows adopt, shared by the rows that order, and those the
 * deletion row deletes (see seeded-animals.ts).
 */
export interface Seeded extends AnimalWalks {
  /** Animals added through the create route. */
  pets: number[];
  /** The shopper's animals the edit row renames, apart from `pets` so their names stay put. */
  editable: number[];
  /** The shopper's categories, which the rename row renames. */
  categories: number[];
  /** Orders the shopper placed. */
  orders: number[];
  /** The hooks account's endpoints. */
  webhooks: number[];
  /** Deliveries of the first endpoint. */
  deliveries: number[];
  /** An animal of the shopper's with a few photos, and their ids. */
  album: { petId: number; photoIds: string[] };
  /** Animals of the shopper's with room for photos, ten places each, for the upload row. */
  photoPlaces: PhotoPlaces;
}

/** A floor of a row: what it runs, and the requests it gets when they are not the row's own. */
export interface RowFloor {
  label: string;
  flow?: (seeded: Seeded) => Flow;
}

export interface BenchRow {
  id: string;
  label: string;
  /** Hot rows are loaded every round; the others in the first few (`--other-rounds`). */
  tier: "hot" | "other";
  /** Whose key the endpoint's requests carry, and whom the floor acts for. */
  caller: Caller;
  /** At most this many connections, where the endpoint caps what one account may hold at once. */
  connections?: number;
  flow: (seeded: Seeded) => Flow;
  /** Each is loaded right beside the endpoint, every round the row is. */
  floors: RowFloor[];
  /**
   * Undoes what a load leaves half done on a server, run after each: a
   * load ends mid-unit on each connection, so a unit that makes something
   * and then removes it may leave it behind.
   */
  tidy?: (send: Send, seeded: Seeded) => Promise<void>;
}

/** A row's one floor, which takes the row's own requests. */
export const sameRequests = (label: string): RowFloor[] => [{ label }];

/**
 * A row's floor, then the same statements answered with the headers the
 * API's reply carries, at the floor's own path that `flow` requests.
 */
export const andWithHeaders = (label: string, flow: (seeded: Seeded) => Flow): RowFloor[] => [
  { label },
  { label: `${label}, sending the API's headers`, flow },
];
