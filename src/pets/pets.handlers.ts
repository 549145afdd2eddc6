import { keyOwner } from "../accounts/owner.ts";
import { positionIn } from "../api/cursor.ts";
import { nextPageLink, pageReply } from "../api/pagination.ts";
import { createdReply, foundReply, recordReply } from "../api/record-replies.ts";
import type { RouteHandlers } from "../api/route-handlers.ts";
import { changeRequestOf } from "../catalogue/changes.ts";
import { deletionReply } from "../catalogue/deletion-reply.ts";
import { refusalError } from "../catalogue/refusals.ts";
import { ApiError, messages } from "../errors.ts";
import { replyOf } from "../idempotency/idempotent-request.ts";
import { nearbyOf, placeParameters } from "../shelters/near.schemas.ts";
import { decodeNearCursor, encodeNearCursor } from "../shelters/near-cursor.ts";
import { createPet } from "./pet-changes.queries.ts";
import { editPet, removePet } from "./pet-edits.ts";
import { yesNoParameters } from "./pet-finders.schemas.ts";
import { findersOf } from "./pet-finders.ts";
import { listPets } from "./pet-listing.queries.ts";
import { listPetsNear } from "./pet-listing-near.queries.ts";
import { findPet } from "./pets.queries.ts";
import type { petRoutes } from "./pets.routes.ts";
import { PET_NOT_FOUND, PetSchema } from "./pets.schemas.ts";

/** How a refusal's error names an animal. */
const animal = { noun: "animal", notFound: PET_NOT_FOUND } as const;

/** The animals' handlers, one per route of the table. */
export const petHandlers = {
  listPets: async (c) => {
    const query = c.req.valid("query");
    const { limit, status, categoryId, id, q, direction, cursor, near, within, sort, ...profile } =
      query;
    const { shelterId, breed, age, size, sex, ...yesNo } = profile;
    const finders = findersOf(query);
    const db = c.get("services").db;
    const nearby = nearbyOf({ near, within, sort });
    // Every filter goes on; the direction only when it is not the default.
    const kept = {
      limit,
      status,
      categoryId,
      id,
      q,
      shelterId,
      breed,
      age,
      size,
      sex,
      ...yesNoParameters(yesNo),
      direction: direction === "desc" ? direction : undefined,
      ...placeParameters({ near, within, sort }),
    };
    if (nearby) {
      const after = cursor === undefined ? undefined : decodeNearCursor(cursor, nearby, direction);
      const page = await listPetsNear(db, { ...finders, nearby, direction, after, limit });
      const next =
        page.next === undefined
          ? undefined
          : nextPageLink(c.req.url, kept, {
              cursor: encodeNearCursor(nearby, direction, page.next),
            });
      return pageReply(c, page.pets, next);
    }
    const page = await listPets(db, {
      ...finders,
      limit,
      direction,
      after: cursor === undefined ? undefined : positionIn(cursor, direction),
    });
    const next =
      page.next === undefined ? undefined : nextPageLink(c.req.url, kept, page.next, direction);
    return pageReply(c, page.pets, next);
  },

  createPet: async (c) => {
    const owner = { owner: keyOwner(c.get("apiKey")), now: Date.now() };
    const newPet = c.req.valid("json");
    const outcome = await createPet(c.get("services").db, newPet, owner, c.get("claim"));
    if (outcome.kind === "unknownCategory" || outcome.kind === "unknownShelter") {
      throw refusalError(outcome, animal);
    }
    if (outcome.kind === "notOwner") throw new ApiError("not_owner", messages.notOwner("shelter"));
    const pet = replyOf(outcome, 201, PetSchema);
    return createdReply(c, pet, "/v1/pets");
  },

  getPet: async (c) => {
    const { petId } = c.req.valid("param");
    return foundReply(c, await findPet(c.get("services").db, petId), PET_NOT_FOUND);
  },

  updatePet: async (c) => {
    const request = changeRequestOf(c, c.req.valid("param").petId);
    const outcome = await editPet(c.get("services").db, request, c.req.valid("json"));
    if (outcome.kind !== "edited" && outcome.kind !== "unchanged")
      throw refusalError(outcome, animal);
    return recordReply(c, outcome.pet, 200);
  },

  deletePet: (c) => deletionReply(c, c.req.valid("param").petId, removePet, animal),
} satisfies RouteHandlers<typeof petRoutes>;
