import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { goneAfterSunset } from "../middleware/deprecation.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { methodNotAllowed } from "../middleware/method-not-allowed.ts";
import { notFoundWhenIdInvalid, rejectInvalid } from "../validation.ts";
import { createPetHandler, getPetHandler, listPetsHandler } from "./pets.handlers.ts";
import { createPetRoute, getPetDeprecation, getPetRoute, listPetsRoute } from "./pets.routes.ts";
import { PET_NOT_FOUND } from "./pets.schemas.ts";

/**
 * The animals' routes, below the /v1 authentication and limits. Body checks
 * run before each route's validators: media type, size, then JSON syntax.
 */
export function petsRoutes(): OpenAPIHono<AppEnv> {
  const pets = new OpenAPIHono<AppEnv>({ defaultHook: rejectInvalid });
  pets.post("/pets", jsonBody());
  pets.get("/pets/:petId", goneAfterSunset(getPetDeprecation));
  pets.openapi(listPetsRoute, listPetsHandler);
  pets.openapi(createPetRoute, createPetHandler);
  pets.openapi(getPetRoute, getPetHandler, notFoundWhenIdInvalid(PET_NOT_FOUND));
  pets.all("/pets", methodNotAllowed(["GET", "HEAD", "POST"]));
  pets.all("/pets/:petId", methodNotAllowed(["GET", "HEAD"]));
  return pets;
}

export { petsDeprecations } from "./pets.routes.ts";
