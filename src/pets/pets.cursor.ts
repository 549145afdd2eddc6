import { ApiError } from "../errors.ts";
import { MAX_ID } from "./pets.schemas.ts";

const VERSION = "p1";
const DECODED = new RegExp(`^${VERSION}:([1-9]\\d{0,15})$`);

/** An opaque position after the animal with this id; clients only ever follow it. */
export function encodeCursor(afterId: number): string {
  return btoa(`${VERSION}:${afterId}`).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export function decodeCursor(cursor: string): number {
  const invalid = new ApiError(
    "invalid_request",
    "The cursor is not valid; follow the Link header of the previous page.",
    {
      details: [{ path: "cursor", message: "Not a cursor this service issued" }],
    },
  );
  let decoded: string;
  try {
    decoded = atob(cursor.replace(/-/g, "+").replace(/_/g, "/"));
  } catch {
    throw invalid;
  }
  const match = DECODED.exec(decoded);
  const afterId = Number(match?.[1]);
  if (!match || afterId > MAX_ID) throw invalid;
  return afterId;
}
