import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { goneAfterSunset } from "../middleware/deprecation.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { methodNotAllowed } from "../middleware/method-not-allowed.ts";
import { notFoundWhenIdInvalid, rejectInvalid } from "../validation.ts";
import * as handlers from "./pets.handlers.ts";
import * as routes from "./pets.routes.ts";
import { PET_NOT_FOUND } from "./pets.schemas.ts";

/**
 * The animals' routes, below the /v1 authentication and limits. Body checks
 * run before each route's validators: media type, size, then JSON syntax.
 */
export function petsRoutes(): OpenAPIHono<AppEnv> {
  const pets = new OpenAPIHono<AppEnv>({ defaultHook: rejectInvalid });
  pets.post("/pets", jsonBody());
  pets.get("/pets/:petId", goneAfterSunset(routes.getPetDeprecation));
  pets.openapi(routes.listPetsRoute, handlers.listPetsHandler);
  pets.openapi(routes.createPetRoute, handlers.createPetHandler);
  pets.openapi(routes.getPetRoute, handlers.getPetHandler, notFoundWhenIdInvalid(PET_NOT_FOUND));
  pets.all("/pets", methodNotAllowed(["GET", "HEAD", "POST"]));
  pets.all("/pets/:petId", methodNotAllowed(["GET", "HEAD"]));
  return pets;
}

export { petsDeprecations } from "./pets.routes.ts";
