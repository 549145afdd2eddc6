import { z } from "@hono/zod-openapi";
import { CursorParamSchema, encodeCursor } from "./cursor.ts";
import { digitsAsInteger } from "./identifiers.ts";
import { optionalHeader, type ResponseHeader } from "./responses.ts";

/**
 * The query parameters every listing shares: `limit` (1–100, default 20,
 * never clamped) and the opaque `cursor` of a previous page's next link.
 * `things` names what is listed, for the descriptions.
 */
export function pageParameters(things: string) {
  return {
    limit: digitsAsInteger(z.int().min(1).max(100))
      .default(20)
      .openapi({
        param: { name: "limit", in: "query" },
        description: `Most ${things} to return.`,
        example: 20,
      }),
    cursor: CursorParamSchema,
  };
}

/** The query of a listing that can be narrowed to one status of what it lists. */
export function statusPageQuery<S extends z.ZodType>(things: string, status: S) {
  const { limit, cursor } = pageParameters(things);
  return z.object({
    limit,
    status: status.optional().openapi({
      param: { name: "status", in: "query" },
      description: `Only ${things} with this status.`,
    }),
    cursor,
  });
}

/**
 * The RFC 8288 link to the page after the row with `afterId`: the listing's
 * own address with its parameters (those given, in this order) and the cursor.
 * The request's URL is already normalised by the runtime, so its query is cut
 * off as text rather than parsed again on every page.
 */
export function nextPageLink(
  requestUrl: string,
  parameters: Record<string, string | number | undefined>,
  afterId: number,
): string {
  const queryStart = requestUrl.indexOf("?");
  const address = queryStart === -1 ? requestUrl : requestUrl.slice(0, queryStart);
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (value !== undefined) query.set(name, String(value));
  }
  query.set("cursor", encodeCursor(afterId));
  return `<${address}?${query}>; rel="next"`;
}

/** The `Link` header of a listing's 200, as documented; `example` is a next link of that listing. */
export function nextPageLinkHeader(example: string): ResponseHeader {
  return optionalHeader({
    description:
      'RFC 8288 link to the next page (`rel="next"`); absent on the last page, so not on every reply.',
    schema: { type: "string" },
    example,
  });
}
