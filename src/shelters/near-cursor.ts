import { ApiError, messages } from "../errors.ts";
import { fromBase64Url, toBase64Url } from "../utils/base64url.ts";
import { utf8Decoder, utf8Encoder } from "../utils/utf8.ts";
import type { Nearby } from "./near.schemas.ts";

/**
 * The cursor of a listing with `near`: its sort, its position (the last
 * distance, in 100 m units, and id it examined; for `sort=id` the id and its
 * direction) and a digest of `near` and `within`, so that following it with
 * another place or distance is refused rather than skipping or repeating.
 */

const VERSION = "n1";
const DECODED = new RegExp(`^${VERSION}:(d|i):(\\d{1,6}):([1-9]\\d{0,15}):([0-9a-f]{8})(:desc)?$`);

/** Where a page of a listing with `near` ends. */
export interface NearPosition {
  /** The distance, in 100 m units, of the last item examined (0 in id order). */
  unit: number;
  id: number;
}

/** FNV-1a of the place and distance, as eight hex digits: enough to tell one listing's from another's. */
function digestOf({ place, withinKm }: Nearby): string {
  let hash = 0x811c9dc5;
  for (const char of `${place.latitude},${place.longitude},${withinKm}`) {
    hash ^= char.charCodeAt(0);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, "0");
}

/** The cursor after `position` in this listing. */
export function encodeNearCursor(
  nearby: Nearby,
  direction: "asc" | "desc",
  position: NearPosition,
): string {
  const sort = nearby.sort === "distance" ? "d" : "i";
  const suffix = direction === "desc" ? ":desc" : "";
  const text = `${VERSION}:${sort}:${position.unit}:${position.id}:${digestOf(nearby)}${suffix}`;
  return toBase64Url(utf8Encoder.encode(text));
}

function refused(message: string): ApiError {
  return new ApiError("invalid_request", messages.invalidCursor, {
    details: [{ path: "cursor", message }],
  });
}

/** The position a cursor of this listing holds; a cursor of any other listing is a 400. */
export function decodeNearCursor(
  cursor: string,
  nearby: Nearby,
  direction: "asc" | "desc",
): NearPosition {
  const bytes = fromBase64Url(cursor);
  const match = bytes && DECODED.exec(utf8Decoder.decode(bytes));
  const id = Number(match?.[3]);
  if (!match || !Number.isSafeInteger(id)) {
    throw refused("Not a cursor of a listing with near");
  }
  if (match[1] !== (nearby.sort === "distance" ? "d" : "i")) {
    throw refused("This cursor continues a listing in another order");
  }
  if (match[4] !== digestOf(nearby)) {
    throw refused("This cursor continues a listing with another near or within");
  }
  if ((match[5] ? "desc" : "asc") !== direction) {
    throw refused("This cursor continues a listing in the other direction");
  }
  return { unit: Number(match[2]), id };
}
