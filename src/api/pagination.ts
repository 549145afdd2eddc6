import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { TypedResponse } from "hono/types";
import type { JSONParsed, JSONValue } from "hono/utils/types";
import { CursorParamSchema, type Direction, encodeCursor } from "./cursor.ts";
import { contentTag } from "./entity-tags.ts";
import { digitsAsInteger } from "./identifiers.ts";
import {
  ANY_OPERATION,
  type DocumentedError,
  errorResponses,
  jsonReply,
  optionalHeader,
  type ResponseHeader,
} from "./responses.ts";

/** The most items a page holds. */
const MAX_PAGE_SIZE = 100;

/**
 * A listing's reply, named `name` in the document: its items as a bare
 * array, at most a page of them, or `max` where the listing holds fewer.
 */
export function listOf<T extends z.ZodType>(
  name: string,
  item: T,
  described: { description: string; example: unknown[] },
  max = MAX_PAGE_SIZE,
) {
  return z.array(item).max(max).openapi(name, described);
}

/**
 * The query parameters every listing shares: `limit` (1–100, default 20,
 * never clamped) and the opaque `cursor` of a previous page's next link.
 * `things` names what is listed, for the descriptions.
 */
export function pageParameters(things: string) {
  return {
    limit: digitsAsInteger(z.int().min(1).max(MAX_PAGE_SIZE))
      .default(20)
      .openapi({
        param: { name: "limit", in: "query", description: `Most ${things} to return.` },
        example: 20,
      }),
    cursor: CursorParamSchema,
  };
}

/**
 * A query parameter that may repeat (`status=a&status=b`), at most `max`
 * times: a list of `item`s, whether sent once or more. Documented as one
 * value or a list, so a client that sends one value keeps its types.
 */
export function repeatedParameter<S extends z.ZodType>(
  name: string,
  item: S,
  max: number,
  description: string,
) {
  return z
    .union([item, z.array(item).min(1).max(max)])
    .transform((value) => (Array.isArray(value) ? value : [value]) as z.output<S>[])
    .optional()
    .openapi({ param: { name, in: "query", style: "form", explode: true, description } });
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

/** A query parameter as the next link repeats it: absent, one value, or repeated. */
type LinkParameter = string | number | readonly (string | number)[] | undefined;

/**
 * The RFC 8288 link to the page after the row with id `position` (before it,
 * newest first), or to the page a listing's own cursor names: the listing's
 * own address with its parameters (those given, in this order, a list as the
 * parameter repeated) and the cursor. The
 * request's URL is already normalised by the runtime, so its query is cut
 * off as text rather than parsed again on every page.
 */
export function nextPageLink(
  requestUrl: string,
  parameters: Record<string, LinkParameter>,
  position: number | { cursor: string },
  direction: Direction = "asc",
): string {
  const queryStart = requestUrl.indexOf("?");
  const address = queryStart === -1 ? requestUrl : requestUrl.slice(0, queryStart);
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(parameters)) {
    if (value === undefined) continue;
    for (const each of typeof value === "object" ? value : [value])
      query.append(name, String(each));
  }
  query.set(
    "cursor",
    typeof position === "number" ? encodeCursor(position, direction) : position.cursor,
  );
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

/** What declares a paged listing's request and replies, beside its path and description. */
interface PagedListing<Q extends z.ZodType, S extends z.ZodType, P extends z.ZodType | undefined> {
  /** The query: the page parameters, and the listing's finders. */
  query: Q;
  /** The path parameters, for a listing below one resource. */
  params?: P;
  /** The body of a page: the bare array of what is listed. */
  page: S;
  /** What the 200 is, e.g. "A page of animals (possibly empty)." */
  description: string;
  /** A next link of this listing, as its `Link` header's example. */
  next: string;
  /** The errors it gives besides those of every listing (400, 401, 429, 500, 503). */
  errors?: readonly DocumentedError[];
}

/**
 * A paged listing's request and replies, declared once for every listing:
 * its query (and path parameters), a 200 with the page as the bare array and
 * the `Link` to the next page, and the errors every listing gives.
 */
export function pagedListing<
  Q extends z.ZodType,
  S extends z.ZodType,
  P extends z.ZodType | undefined = undefined,
>({ query, params, page, description, next, errors = [] }: PagedListing<Q, S, P>) {
  return {
    request: { query, params: params as P },
    responses: {
      200: jsonReply(description, page, { Link: nextPageLinkHeader(next) }),
      ...errorResponses([400, 401, ...errors, ...ANY_OPERATION]),
    },
  };
}

/**
 * A listing's page: the items, with the `Link` to the next page when one
 * may follow, and the `ETag` of both, made from the page's JSON text here
 * (the response chain would otherwise read the body back to tag it). The
 * text is sent as it is, so the items are turned into JSON once.
 */
export async function pageReply<T extends JSONValue | object>(
  c: Context,
  items: T[],
  next: string | undefined,
) {
  const text = JSON.stringify(items);
  if (next !== undefined) c.header("Link", next);
  c.header("ETag", await contentTag(text, next ?? null));
  // What `c.json(items, 200)` would send and declare, without writing the text again.
  const reply = c.body(text, 200, { "Content-Type": "application/json" });
  return reply as unknown as Response & TypedResponse<JSONParsed<T[]>, 200, "json">;
}
