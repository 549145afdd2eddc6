import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env.ts";
import { ApiError } from "../errors.ts";
import { goneAfterSunset } from "../middleware/deprecation.ts";
import { dispatchEventsAfterChange } from "../middleware/dispatch-events.ts";
import { jsonBody } from "../middleware/json-body.ts";
import { methodNotAllowed } from "../middleware/method-not-allowed.ts";
import { rejectInvalid } from "../validation.ts";
import { createPetHandler, getPetHandler, listPetsHandler } from "./pets.handlers.ts";
import { createPetRoute, getPetDeprecation, getPetRoute, listPetsRoute } from "./pets.routes.ts";
import { PET_NOT_FOUND } from "./pets.schemas.ts";

/** A malformed petId names no animal, so it is simply not found. */
function petNotFoundWhenInvalid(result: { success: boolean }): undefined {
  if (!result.success) throw new ApiError("not_found", PET_NOT_FOUND);
}

/**
 * The animals' routes, below the /v1 authentication and limits. Body checks
 * run before each route's validators: media type, size, then JSON syntax.
 * A create's event leaves for the webhooks after the reply.
 */
export function petsRoutes(): OpenAPIHono<AppEnv> {
  const pets = new OpenAPIHono<AppEnv>({ defaultHook: rejectInvalid });
  pets.post("/pets", jsonBody(), dispatchEventsAfterChange());
  pets.get("/pets/:petId", goneAfterSunset(getPetDeprecation));
  pets.openapi(listPetsRoute, listPetsHandler);
  pets.openapi(createPetRoute, createPetHandler);
  pets.openapi(getPetRoute, getPetHandler, petNotFoundWhenInvalid);
  pets.all("/pets", methodNotAllowed(["GET", "HEAD", "POST"]));
  pets.all("/pets/:petId", methodNotAllowed(["GET", "HEAD"]));
  return pets;
}

export { petsDeprecations } from "./pets.routes.ts";
