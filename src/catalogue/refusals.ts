import { ApiError, messages } from "../errors.ts";
import type { CommonRefusal } from "./changes.ts";

/** Every reason a change of the catalogue (an animal, its photos, a category, a shelter) gives for changing nothing. */
export type Refusal =
  | CommonRefusal
  | { kind: "unknownCategory" }
  | { kind: "unknownShelter" }
  | { kind: "orderOpen"; orderId: number }
  | { kind: "nameTaken"; takenBy: number }
  | { kind: "inUse" }
  | { kind: "limitReached"; limit: number }
  | { kind: "photoNotFound" };

/** How a refusal's error names the record the change was to: its noun, and the 404s of its path. */
export interface RefusedRecord {
  noun: "animal" | "category" | "shelter";
  /** The 404 of the record's identifier. */
  notFound: string;
  /** The 404 of a photo's identifier, where the path names one. */
  photoNotFound?: string;
}

/** The error that says why a change of `record` changed nothing: the one mapping of refusals to errors. */
export function refusalError(refusal: Refusal, record: RefusedRecord): ApiError {
  switch (refusal.kind) {
    case "notFound":
      return new ApiError("not_found", record.notFound);
    case "notOwner":
      return new ApiError("not_owner", messages.notOwner(record.noun));
    case "preconditionFailed":
      return new ApiError("precondition_failed", messages.preconditionFailed(record.noun));
    case "unknownCategory":
      return new ApiError("unknown_category", messages.unknownCategory, {
        details: [{ path: "categoryId", message: "Names no category" }],
      });
    case "unknownShelter":
      return new ApiError("unknown_shelter", messages.unknownShelter, {
        details: [{ path: "shelterId", message: "Names no shelter" }],
      });
    case "orderOpen":
      return new ApiError("order_open", messages.orderOpen(refusal.orderId));
    case "nameTaken":
      return new ApiError("category_exists", messages.categoryExists(refusal.takenBy));
    case "inUse":
      return record.noun === "shelter"
        ? new ApiError("shelter_in_use", messages.shelterInUse)
        : new ApiError("category_in_use", messages.categoryInUse);
    case "limitReached":
      return new ApiError("limit_reached", messages.photoLimitReached(refusal.limit));
    case "photoNotFound":
      return new ApiError("not_found", record.photoNotFound ?? messages.notFound);
  }
}
