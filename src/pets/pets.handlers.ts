import type { RouteHandler } from "@hono/zod-openapi";
import { database } from "../db/database.ts";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { decodeCursor, encodeCursor } from "./pets.cursor.ts";
import { findPet, insertPet, listPets } from "./pets.queries.ts";
import type { createPetRoute, getPetRoute, listPetsRoute } from "./pets.routes.ts";
import type { PetStatus } from "./pets.schemas.ts";

function nextPageLink(
  requestUrl: string,
  limit: number,
  status: PetStatus | undefined,
  afterId: number,
): string {
  const url = new URL(requestUrl);
  url.search = "";
  url.searchParams.set("limit", String(limit));
  if (status) url.searchParams.set("status", status);
  url.searchParams.set("cursor", encodeCursor(afterId));
  return `<${url.href}>; rel="next"`;
}

export const listPetsHandler: RouteHandler<typeof listPetsRoute, AppEnv> = async (c) => {
  const { limit, status, cursor } = c.req.valid("query");
  const afterId = cursor === undefined ? 0 : decodeCursor(cursor);
  const page = await listPets(database(c.env.DB), { limit, status, afterId });
  const last = page.pets.at(-1);
  if (page.hasMore && last) c.header("Link", nextPageLink(c.req.url, limit, status, last.id));
  return c.json(page.pets, 200);
};

export const createPetHandler: RouteHandler<typeof createPetRoute, AppEnv> = async (c) => {
  const pet = await insertPet(database(c.env.DB), c.req.valid("json"));
  c.header("Location", `/v1/pets/${pet.id}`);
  return c.json(pet, 201);
};

export const getPetHandler: RouteHandler<typeof getPetRoute, AppEnv> = async (c) => {
  const pet = await findPet(database(c.env.DB), c.req.valid("param").petId);
  if (!pet) throw new ApiError("not_found", "No animal has this identifier.");
  return c.json(pet, 200);
};
