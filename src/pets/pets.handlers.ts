import type { RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import { decodeCursor } from "../api/cursor.ts";
import { nextPageLink } from "../api/pagination.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { dispatchAfterChange } from "../events/event-dispatch.ts";
import { claimOf, storedBody } from "../idempotency/idempotent-request.ts";
import { findPet, insertPet, insertPetOnce, listPets } from "./pets.queries.ts";
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

/** Creates the animal once per Idempotency-Key, answering every retry as the first request was answered. */
async function createOnce(c: Context<AppEnv>, newPet: NewPet, idempotencyKey: string) {
  const fields = [newPet.name, newPet.categoryId, newPet.status ?? null];
  const claim = await claimOf(c, idempotencyKey, "createPet", fields, Date.now());
  const outcome = await insertPetOnce(c.var.services.db, newPet, claim);
  dispatchAfterChange(c, outcome);
  return storedBody(c, outcome, 201, PetSchema);
}

async function createUnkeyed(c: Context<AppEnv>, newPet: NewPet) {
  const created = await insertPet(c.var.services.db, newPet);
  dispatchAfterChange(c, created);
  return created.pet;
}

export const createPetHandler: RouteHandler<typeof createPetRoute, AppEnv> = async (c) => {
  const newPet = c.req.valid("json");
  const idempotencyKey = c.req.valid("header")["Idempotency-Key"];
  const pet =
    idempotencyKey === undefined
      ? await createUnkeyed(c, newPet)
      : await createOnce(c, newPet, idempotencyKey);
  c.header("Location", `/v1/pets/${pet.id}`);
  return c.json(pet, 201);
};

export const getPetHandler: RouteHandler<typeof getPetRoute, AppEnv> = async (c) => {
  const pet = await findPet(c.var.services.db, c.req.valid("param").petId);
  if (!pet) throw new ApiError("not_found", PET_NOT_FOUND);
  return c.json(pet, 200);
};
