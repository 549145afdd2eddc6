import { keyOwner } from "../accounts/owner.ts";
import { decodeCursor } from "../api/cursor.ts";
import { nextPageLink, pageReply } from "../api/pagination.ts";
import { createdReply, foundReply, recordReply } from "../api/record-replies.ts";
import type { RouteHandlers } from "../api/route-handlers.ts";
import { prefixQuery } from "../api/search-words.ts";
import { changeRequestOf } from "../catalogue/changes.ts";
import { deletionReply } from "../catalogue/deletion-reply.ts";
import { refusalError } from "../catalogue/refusals.ts";
import { ApiError, messages } from "../errors.ts";
import { replyOf } from "../idempotency/idempotent-request.ts";
import { nearbyOf, placeParameters } from "./near.schemas.ts";
import { decodeNearCursor, encodeNearCursor } from "./near-cursor.ts";
import { createShelter } from "./shelter-changes.queries.ts";
import { editShelter, removeShelter } from "./shelter-edits.ts";
import { findShelter, listShelters } from "./shelters.queries.ts";
import type { shelterRoutes } from "./shelters.routes.ts";
import { SHELTER_NOT_FOUND, ShelterSchema } from "./shelters.schemas.ts";
import { listSheltersNear } from "./shelters-near.queries.ts";

/** How a refusal's error names a shelter. */
const shelter = { noun: "shelter", notFound: SHELTER_NOT_FOUND } as const;

/** The shelters' handlers, one per route of the table. */
export const shelterHandlers = {
  listShelters: async (c) => {
    const { limit, id, q, country, cursor, near, within, sort } = c.req.valid("query");
    const finders = {
      limit,
      ids: id,
      words: q === undefined ? undefined : prefixQuery(q),
      countries: country,
    };
    const kept = { limit, id, q, country, ...placeParameters({ near, within, sort }) };
    const db = c.get("services").db;
    const nearby = nearbyOf({ near, within, sort });
    if (nearby) {
      const after = cursor === undefined ? undefined : decodeNearCursor(cursor, nearby, "asc");
      const page = await listSheltersNear(db, { ...finders, nearby, after });
      const next =
        page.next === undefined
          ? undefined
          : nextPageLink(c.req.url, kept, { cursor: encodeNearCursor(nearby, "asc", page.next) });
      return pageReply(c, page.shelters, next);
    }
    const page = await listShelters(db, {
      ...finders,
      after: cursor === undefined ? undefined : decodeCursor(cursor),
    });
    const next = page.next === undefined ? undefined : nextPageLink(c.req.url, kept, page.next);
    return pageReply(c, page.shelters, next);
  },

  createShelter: async (c) => {
    const owner = { owner: keyOwner(c.get("apiKey")), now: Date.now() };
    const outcome = await createShelter(
      c.get("services").db,
      c.req.valid("json"),
      owner,
      c.get("claim"),
    );
    if (outcome.kind === "limitReached") {
      throw new ApiError(
        "limit_reached",
        messages.limitReached(outcome.cap, "shelters", "delete one or move to a larger plan"),
      );
    }
    const shelter = replyOf(outcome, 201, ShelterSchema);
    return createdReply(c, shelter, "/v1/shelters");
  },

  getShelter: async (c) => {
    const { shelterId } = c.req.valid("param");
    return foundReply(c, await findShelter(c.get("services").db, shelterId), SHELTER_NOT_FOUND);
  },

  updateShelter: async (c) => {
    const request = changeRequestOf(c, c.req.valid("param").shelterId);
    const outcome = await editShelter(c.get("services").db, request, c.req.valid("json"));
    if (outcome.kind !== "edited" && outcome.kind !== "unchanged")
      throw refusalError(outcome, shelter);
    return recordReply(c, outcome.shelter, 200);
  },

  deleteShelter: (c) => deletionReply(c, c.req.valid("param").shelterId, removeShelter, shelter),
} satisfies RouteHandlers<typeof shelterRoutes>;
