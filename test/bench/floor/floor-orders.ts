import { database } from "../../../src/db/database.ts";
import { moveOrder, placeOrder } from "../../../src/orders/orders.queries.ts";
import { createPet } from "../../../src/pets/pet-changes.queries.ts";
import { listPets } from "../../../src/pets/pet-listing.queries.ts";
import type { NewPet } from "../../../src/pets/pets.schemas.ts";
import { FLOOR_KEY_HASH } from "../order-animals.ts";

/**
 * What the real Worker's listPets, createPet, placeOrder and completeOrder
 * send to D1, for the floor: the Worker's own prepared statements and
 * changes, run on the floor's bare binding (one query or one batch each),
 * with no validation, auth or response headers. The floor acts for the key
 * its database holds (`FLOOR_KEY_HASH`).
 */

/** listPets' first page of 20. */
export function floorRead(d1: D1Database) {
  return listPets(database(d1), { limit: 20, direction: "asc", after: undefined });
}

/** createPet's batch: the animal, its event, the settlement, the events probe. */
export function floorCreate(d1: D1Database, pet: NewPet, now: number) {
  return createPet(database(d1), pet, { apiKeyHash: FLOOR_KEY_HASH, now }, undefined);
}

/** placeOrder's batch: the animal to pending, the order, their events, the animal read back, the probe. */
export function floorPlace(d1: D1Database, petId: number, now: number) {
  return placeOrder(database(d1), { apiKeyHash: FLOOR_KEY_HASH, petId, now }, undefined);
}

/** completeOrder's batch: the animal to sold, the order, their events, the order read back, the probe. */
export function floorComplete(d1: D1Database, orderId: number, now: number) {
  return moveOrder(database(d1), "complete", { apiKeyHash: FLOOR_KEY_HASH, orderId, now });
}
