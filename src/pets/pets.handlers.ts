import { decodeCursor } from "../api/cursor.ts";
import { nextPageLink } from "../api/pagination.ts";
import type { RouteHandlers } from "../api/route-router.ts";
import { ApiError } from "../errors.ts";
import { dispatchAfterChange } from "../events/event-dispatch.ts";
import { claimOf, replyOf } from "../idempotency/idempotent-request.ts";
import { createPet, findPet, listPets } from "./pets.queries.ts";
import type { petRoutes } from "./pets.routes.ts";
import { PET_NOT_FOUND, PetSchema } from "./pets.schemas.ts";

/** The animals' handlers, one per route of the table. */
export const petHandlers = {
  listPets: async (c) => {
    const { limit, status, cursor } = c.req.valid("query");
    const afterId = cursor === undefined ? 0 : decodeCursor(cursor);
    const page = await listPets(c.var.services.db, { limit, status, afterId });
    const last = page.pets.at(-1);
    if (page.hasMore && last) c.header("Link", nextPageLink(c.req.url, { limit, status }, last.id));
    return c.json(page.pets, 200);
  },

  /** Creates the animal, once per Idempotency-Key when one is sent, answering every retry as the first request was answered. */
  createPet: async (c) => {
    const newPet = c.req.valid("json");
    const idempotencyKey = c.req.valid("header")["Idempotency-Key"];
    const now = Date.now();
    // The fields in a fixed order: the body by meaning, whatever its layout.
    const fingerprint = [newPet.name, newPet.categoryId, newPet.status ?? null];
    const claim =
      idempotencyKey === undefined
        ? undefined
        : await claimOf(c.var.apiKey.hash, idempotencyKey, "createPet", fingerprint, now);
    const outcome = await createPet(c.var.services.db, newPet, now, claim);
    dispatchAfterChange(c.var.services, c.executionCtx, outcome);
    const { body: pet, replayed } = replyOf(outcome, 201, PetSchema);
    if (replayed) c.header("Idempotent-Replayed", "true");
    c.header("Location", `/v1/pets/${pet.id}`);
    return c.json(pet, 201);
  },

  getPet: async (c) => {
    const pet = await findPet(c.var.services.db, c.req.valid("param").petId);
    if (!pet) throw new ApiError("not_found", PET_NOT_FOUND);
    return c.json(pet, 200);
  },
} satisfies RouteHandlers<typeof petRoutes>;
