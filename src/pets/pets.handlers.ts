import type { RouteHandler } from "@hono/zod-openapi";
import { decodeCursor } from "../api/cursor.ts";
import { nextPageLink } from "../api/pagination.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { dispatchAfterChange } from "../events/event-dispatch.ts";
import { claimOf, replyOf } from "../idempotency/idempotent-request.ts";
import { createPet, findPet, listPets } from "./pets.queries.ts";
import type { createPetRoute, getPetRoute, listPetsRoute } from "./pets.routes.ts";
import { type NewPet, PET_NOT_FOUND, PetSchema } from "./pets.schemas.ts";

export const listPetsHandler: RouteHandler<typeof listPetsRoute, AppEnv> = async (c) => {
  const { limit, status, cursor } = c.req.valid("query");
  const afterId = cursor === undefined ? 0 : decodeCursor(cursor);
  const page = await listPets(c.var.services.db, { limit, status, afterId });
  const last = page.pets.at(-1);
  if (page.hasMore && last) c.header("Link", nextPageLink(c.req.url, { limit, status }, last.id));
  return c.json(page.pets, 200);
};

/** Creates the animal, once per Idempotency-Key when one is sent, answering every retry as the first request was answered. */
export const createPetHandler: RouteHandler<typeof createPetRoute, AppEnv> = async (c) => {
  const newPet = c.req.valid("json");
  const idempotencyKey = c.req.valid("header")["Idempotency-Key"];
  const now = Date.now();
  const claim =
    idempotencyKey === undefined
      ? undefined
      : await claimOf(c.var.apiKey.hash, idempotencyKey, "createPet", petFingerprint(newPet), now);
  const outcome = await createPet(c.var.services.db, newPet, now, claim);
  dispatchAfterChange(c.var.services, c.executionCtx, outcome);
  const { body: pet, replayed } = replyOf(outcome, 201, PetSchema);
  if (replayed) c.header("Idempotent-Replayed", "true");
  c.header("Location", `/v1/pets/${pet.id}`);
  return c.json(pet, 201);
};

/** A create's body by meaning, for its Idempotency-Key: its fields in a fixed order. */
function petFingerprint(newPet: NewPet): unknown[] {
  return [newPet.name, newPet.categoryId, newPet.status ?? null];
}

export const getPetHandler: RouteHandler<typeof getPetRoute, AppEnv> = async (c) => {
  const pet = await findPet(c.var.services.db, c.req.valid("param").petId);
  if (!pet) throw new ApiError("not_found", PET_NOT_FOUND);
  return c.json(pet, 200);
};
