import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { methodNotAllowed } from "../middleware/method-not-allowed.ts";
import { notFoundWhenInvalid, rejectInvalid } from "../validation.ts";
import { createPetHandler, getPetHandler, listPetsHandler } from "./pets.handlers.ts";
import { createPetRoute, getPetRoute, listPetsRoute } from "./pets.routes.ts";

export function petsRoutes(): OpenAPIHono<AppEnv> {
  const pets = new OpenAPIHono<AppEnv>({ defaultHook: rejectInvalid });
  pets.openapi(listPetsRoute, listPetsHandler);
  pets.openapi(createPetRoute, createPetHandler);
  pets.openapi(getPetRoute, getPetHandler, notFoundWhenInvalid);
  pets.all("/pets", methodNotAllowed(["GET", "HEAD", "POST"]));
  pets.all("/pets/:petId", methodNotAllowed(["GET", "HEAD"]));
  return pets;
}
