import { z } from "@hono/zod-openapi";
import { ApiError, messages } from "../errors.ts";
import { fromBase64Url, toBase64Url } from "../utils/base64url.ts";
import { MAX_ID } from "./identifiers.ts";

const VERSION = "p1";
const DECODED = new RegExp(`^${VERSION}:([1-9]\\d{0,15})$`);

/**
 * An opaque position after the row with this id, for keyset paging in id
 * order; clients only ever follow it from a `Link: rel="next"`.
 */
export function encodeCursor(afterId: number): string {
  return toBase64Url(new TextEncoder().encode(`${VERSION}:${afterId}`));
}

/** The `cursor` query parameter of every listing: what the `Link` of the previous page carries. */
export const CursorParamSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9_-]+$/, "Must be a cursor from a Link header")
  .optional()
  .openapi({
    param: { name: "cursor", in: "query" },
    description:
      'Opaque position from a previous page\'s `Link: rel="next"`; follow that link rather than building one. A cursor this service did not issue gives 400.',
    example: "cDE6NDI",
  });

/** The id a cursor this service issued points after; any other text is a 400. */
export function decodeCursor(cursor: string): number {
  const bytes = fromBase64Url(cursor);
  const match = bytes && DECODED.exec(new TextDecoder().decode(bytes));
  const afterId = Number(match?.[1]);
  if (!match || afterId > MAX_ID) {
    throw new ApiError("invalid_request", messages.invalidCursor, {
      details: [{ path: "cursor", message: "Not a cursor this service issued" }],
    });
  }
  return afterId;
}
