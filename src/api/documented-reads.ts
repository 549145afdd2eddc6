import { type RouteConfig, z } from "@hono/zod-openapi";
import { CONSISTENCY_TOKEN_PATTERN } from "./consistency-token.ts";
import { nextPageLinkHeader } from "./pagination.ts";
import { type ResponseHeaders, stringHeader } from "./responses.ts";

/*
 * What the document adds to each GET about reads: the freshness it may
 * ask for (`Consistency-Token`) and its conditional read (`If-None-Match`,
 * the 304).
 */

/**
 * What a GET's 200 and 304 carry instead of `no-store`: the reply may be
 * kept, provided it is revalidated, and its tag to revalidate it with.
 */
const readHeaders: ResponseHeaders = {
  "Cache-Control": stringHeader(
    "A read may be kept, provided it is revalidated before each use (send its `ETag` in `If-None-Match`).",
    "private, no-cache",
    { enum: ["private, no-cache"] },
  ),
  ETag: stringHeader(
    "Identifies this version of the reply: for a page, its body and its `Link` together, so a page with any item changed, or that gained a next page, has another. Send it in `If-None-Match` to be answered 304 while it still holds.",
    '"q1Lw0m9bX2c8Vt4ZpR7nJg"',
  ),
};

/**
 * A listing's `Link` on its 304: one form for every listing, as the 304 has
 * no page to show an example of, so the listings' 304s are stated once.
 */
const notModifiedPageLink = nextPageLinkHeader(
  '<https://api.petstore.example.com/v1/pets?limit=20&cursor=cDE6NDI>; rel="next"',
);

/** The request header that turns a GET into a conditional read. */
const IfNoneMatchHeaderSchema = z.object({
  "If-None-Match": z
    .string()
    .optional()
    .openapi({
      param: {
        name: "If-None-Match",
        in: "header",
        description:
          "`ETag`s of replies kept from before (or `*`): while one still names this reply, the answer is 304 without a body. Compared weakly (`W/` is ignored).",
      },
      example: '"q1Lw0m9bX2c8Vt4ZpR7nJg"',
    }),
});

/** The request header that asks for data at least as fresh as an earlier reply's. */
const ConsistencyTokenHeaderSchema = z.object({
  "Consistency-Token": z
    .string()
    .regex(new RegExp(CONSISTENCY_TOKEN_PATTERN))
    .optional()
    .openapi({
      param: {
        description:
          "An earlier reply's `Consistency-Token`: read at least that fresh (your own writes included) from any copy. Made up: 400; none, or over 24 h old: the nearest copy answers.",
      },
    }),
});

/** The route as documented with one more request header schema. */
function withRequestHeaders(route: RouteConfig, schema: z.ZodObject): RouteConfig {
  const requestHeaders = route.request?.headers;
  const declared = Array.isArray(requestHeaders)
    ? requestHeaders
    : requestHeaders
      ? [requestHeaders]
      : [];
  return { ...route, request: { ...route.request, headers: [...declared, schema] } };
}

/**
 * A GET as documented with `Consistency-Token`, which only a read needs: a
 * write starts at the primary, fresher than any token (it still checks the
 * header's form, as every request does). Others are returned as they are.
 */
export function withReadConsistency(route: RouteConfig): RouteConfig {
  if (route.method !== "get") return route;
  return withRequestHeaders(route, ConsistencyTokenHeaderSchema);
}

/**
 * A GET as documented with its conditional read: the 200 may be kept and
 * carries an `ETag`; `If-None-Match` naming it gives 304 with no body and
 * every header of the 200 but those describing the body. Other methods are
 * returned as they are.
 */
export function withConditionalRead(route: RouteConfig): RouteConfig {
  const ok = route.responses[200];
  if (route.method !== "get" || !ok || "$ref" in ok) return route;
  const headers = { ...ok.headers, ...readHeaders };
  const link: { required?: boolean } | undefined = (headers as Record<string, object>).Link;
  const pageLink = link && !link.required ? { Link: notModifiedPageLink } : undefined;
  return {
    ...withRequestHeaders(route, IfNoneMatchHeaderSchema),
    responses: {
      ...route.responses,
      200: { ...ok, headers },
      304: {
        description:
          "Not modified: `If-None-Match` names the current `ETag`. No body; the headers are those of the 200.",
        headers: { ...headers, ...pageLink },
      },
    },
  };
}
