import type { Context } from "hono";
import { EXAMPLE_TOKEN } from "../../../src/api/consistency-token.ts";
import { nextPageLink } from "../../../src/api/pagination.ts";
import { EXPOSED_HEADERS } from "../../../src/middleware/response-chain.ts";
import { rateLimitHeaders } from "../../../src/rate-limit/rate-limit-headers.ts";
import { BENCH_LIMITS } from "../callers.ts";

/** An instant to write the headers' times from: the same length as any now, and fixed. */
const AN_INSTANT = Date.UTC(2026, 10, 26);

/**
 * The headers every `/v1` reply of the API to a bench key carries beside
 * its body, `ETag` and `Cache-Control`, with values of the form and length
 * a bench key's reply has, made once: a floor that sends them shows what
 * sending the contract's headers costs (workerd writes them, and `wrangler
 * dev`'s proxy reads and writes them again), apart from the work of making them.
 */
const API_HEADERS: Record<string, string> = {
  "Access-Control-Allow-Origin": "*",
  "Access-Control-Expose-Headers": EXPOSED_HEADERS,
  "Consistency-Token": EXAMPLE_TOKEN,
  "X-Content-Type-Options": "nosniff",
  "X-Request-Id": "3f2c9a4e-8d1b-4c7a-9e5f-0a6b2d8c4e1f",
  ...rateLimitHeaders(
    {
      outcome: "allowed",
      windows: [
        { name: "minute" as const, limit: BENCH_LIMITS.perMinute, lengthSeconds: 60 },
        { name: "day" as const, limit: BENCH_LIMITS.perDay, lengthSeconds: 86_400 },
      ].map((window) => ({ ...window, remaining: window.limit - 1, reset: AN_INSTANT / 1000 })),
    },
    AN_INSTANT,
  ),
};
/** A read's reply may be kept but must be revalidated; a change's is never stored. */
export const READ_HEADERS = { ...API_HEADERS, "Cache-Control": "private, no-cache" };
export const CHANGE_HEADERS = { ...API_HEADERS, "Cache-Control": "no-store" };
/** A listing's tag, of the length of the tags the API makes from each page. */
export const PAGE_TAG = `"${"A".repeat(22)}"`;

/**
 * A page of a listing answered with the headers the API's page carries:
 * its tag, and a `Link` to the next page that keeps the request's
 * parameters, as the API's does.
 */
export function pageWithHeaders(
  c: Context,
  items: unknown[],
  next: number | { cursor: string } | undefined,
): Response {
  const { cursor, ...kept } = c.req.queries();
  const parameters = { limit: c.req.query("limit") ?? "20", ...kept };
  const link: Record<string, string> =
    next === undefined ? {} : { Link: nextPageLink(c.req.url, parameters, next) };
  return c.json(items, 200, { ...READ_HEADERS, ETag: PAGE_TAG, ...link });
}
