import type { RouteHandler } from "@hono/zod-openapi";
import type { Context } from "hono";
import { decodeCursor } from "../api/cursor.ts";
import { nextPageLink } from "../api/pagination.ts";
import type { AppEnv } from "../env.ts";
import { ApiError, messages } from "../errors.ts";
import { insertPetOnce } from "./idempotency.queries.ts";
import { findPet, insertPet, listPets } from "./pets.queries.ts";
import type { createPetRoute, getPetRoute, listPetsRoute } from "./pets.routes.ts";
import { type NewPet, PET_NOT_FOUND } from "./pets.schemas.ts";

export const listPetsHandler: RouteHandler<typeof listPetsRoute, AppEnv> = async (c) => {
  const { limit, status, cursor } = c.req.valid("query");
  const afterId = cursor === undefined ? 0 : decodeCursor(cursor);
  const page = await listPets(c.var.services.db, { limit, status, afterId });
  const last = page.pets.at(-1);
  if (page.hasMore && last) c.header("Link", nextPageLink(c.req.url, { limit, status }, last.id));
  return c.json(page.pets, 200);
};

/** Identifies a request body by meaning, so a retry re-serialised with other spacing still matches. */
async function fingerprint(newPet: NewPet): Promise<string> {
  const canonical = JSON.stringify([newPet.name, newPet.categoryId, newPet.status ?? null]);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(canonical));
  return btoa(String.fromCharCode(...new Uint8Array(digest)));
}

async function createOnce(c: Context<AppEnv>, newPet: NewPet, idempotencyKey: string) {
  const outcome = await insertPetOnce(c.var.services.db, newPet, {
    apiKeyHash: c.var.apiKey.hash,
    idempotencyKey,
    requestHash: await fingerprint(newPet),
    now: Date.now(),
  });
  if (outcome.kind === "reused") {
    throw new ApiError("idempotency_key_reused", messages.idempotencyKeyReused);
  }
  if (outcome.kind === "replayed") c.header("Idempotent-Replayed", "true");
  return outcome.pet;
}

export const createPetHandler: RouteHandler<typeof createPetRoute, AppEnv> = async (c) => {
  const newPet = c.req.valid("json");
  const idempotencyKey = c.req.valid("header")["Idempotency-Key"];
  const pet =
    idempotencyKey === undefined
      ? await insertPet(c.var.services.db, newPet)
      : await createOnce(c, newPet, idempotencyKey);
  c.header("Location", `/v1/pets/${pet.id}`);
  return c.json(pet, 201);
};

export const getPetHandler: RouteHandler<typeof getPetRoute, AppEnv> = async (c) => {
  const pet = await findPet(c.var.services.db, c.req.valid("param").petId);
  if (!pet) throw new ApiError("not_found", PET_NOT_FOUND);
  return c.json(pet, 200);
};
