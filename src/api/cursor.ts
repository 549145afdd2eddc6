import { z } from "@hono/zod-openapi";
import { ApiError, messages } from "../errors.ts";
import { fromBase64Url, toBase64Url } from "../utils/base64url.ts";
import { utf8Decoder, utf8Encoder } from "../utils/utf8.ts";
import { MAX_ID } from "./identifiers.ts";

const VERSION = "p1";
const DECODED = new RegExp(`^${VERSION}:([1-9]\\d{0,15})(:desc)?$`);

/** Which way a listing runs through ids: oldest first, or newest first. */
export type Direction = "asc" | "desc";

/** Where a page ends: the last id it examined, and which way the listing runs from there. */
interface Position {
  id: number;
  direction: Direction;
}

/**
 * An opaque position after (or, newest first, before) the row with this id,
 * for keyset paging in id order; clients only ever follow it from a
 * `Link: rel="next"`.
 */
export function encodeCursor(id: number, direction: Direction = "asc"): string {
  const suffix = direction === "desc" ? ":desc" : "";
  return toBase64Url(utf8Encoder.encode(`${VERSION}:${id}${suffix}`));
}

/** The `cursor` query parameter of every listing: what the `Link` of the previous page carries. */
export const CursorParamSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "Must be a cursor from a Link header")
  .optional()
  .openapi({
    param: {
      name: "cursor",
      in: "query",
      description:
        'Opaque position from a previous page\'s `Link: rel="next"`; follow that link rather than building one. A cursor this service did not issue gives 400.',
    },
    example: "cDE6NDI",
  });

function notIssued(message = "Not a cursor this service issued"): ApiError {
  return new ApiError("invalid_request", messages.invalidCursor, {
    details: [{ path: "cursor", message }],
  });
}

/** The position a cursor this service issued holds; any other text is a 400. */
function decodePosition(cursor: string): Position {
  const bytes = fromBase64Url(cursor);
  const match = bytes && DECODED.exec(utf8Decoder.decode(bytes));
  const id = Number(match?.[1]);
  if (!match || id > MAX_ID) throw notIssued();
  return { id, direction: match[2] ? "desc" : "asc" };
}

/**
 * The id a cursor of a listing in ascending order points after; any other
 * text, or a cursor of a listing that runs the other way, is a 400.
 */
export function decodeCursor(cursor: string): number {
  return positionIn(cursor, "asc");
}

/** The id a cursor points past, when it continues a listing running in `direction`; else a 400. */
export function positionIn(cursor: string, direction: Direction): number {
  const position = decodePosition(cursor);
  if (position.direction !== direction) {
    const order = position.direction === "desc" ? "newest first" : "oldest first";
    throw notIssued(`This cursor continues a listing ${order}`);
  }
  return position.id;
}
