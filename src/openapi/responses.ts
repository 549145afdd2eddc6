import type { RouteConfig } from "@hono/zod-openapi";
import { type ErrorCode, ErrorSchema, errorStatus } from "../errors.ts";

type ResponseHeaders = Record<
  string,
  { description: string; schema: { type: "string" | "integer" } }
>;

const integerHeader = (description: string) => ({
  description,
  schema: { type: "integer" as const },
});

/** Headers on every /v1 reply, errors included. */
export const commonHeaders: ResponseHeaders = {
  "X-Request-Id": {
    description: "Identifies the request in logs (the cf-ray id where present).",
    schema: { type: "string" },
  },
  "X-RateLimit-Limit": integerHeader("Requests allowed in the window with the fewest left."),
  "X-RateLimit-Remaining": integerHeader("Requests left in that window."),
  "X-RateLimit-Reset": integerHeader("Unix time, in seconds, at which that window resets."),
  "RateLimit-Policy": {
    description: "The windows in force (IETF RateLimit header fields).",
    schema: { type: "string" },
  },
  RateLimit: {
    description: "The tighter window: requests left (r) and seconds until it resets (t).",
    schema: { type: "string" },
  },
};

const retryAfter = { "Retry-After": integerHeader("Whole seconds to wait before retrying.") };

const errorDescriptions: Record<
  number,
  { description: string; codes: ErrorCode[]; headers?: ResponseHeaders }
> = {
  400: {
    description: "The request is not valid; `details` says which field.",
    codes: ["invalid_request", "invalid_json"],
  },
  401: {
    description: "API key missing or invalid.",
    codes: ["unauthorized"],
    headers: {
      "WWW-Authenticate": { description: 'Bearer realm="petstore"', schema: { type: "string" } },
    },
  },
  404: { description: "No such resource.", codes: ["not_found"] },
  405: {
    description: "The method is not served at this path.",
    codes: ["method_not_allowed"],
    headers: { Allow: { description: "The methods served here.", schema: { type: "string" } } },
  },
  409: {
    description: "A request with this Idempotency-Key is still in flight.",
    codes: ["idempotency_key_in_use"],
    headers: retryAfter,
  },
  410: { description: "The operation has been removed.", codes: ["gone"] },
  413: { description: "The body is larger than 16 KiB.", codes: ["payload_too_large"] },
  415: {
    description: "The body is not sent as application/json.",
    codes: ["unsupported_media_type"],
  },
  422: {
    description: "The Idempotency-Key was used with a different body.",
    codes: ["idempotency_key_reused"],
  },
  429: {
    description: "Rate limit exceeded, or the key is temporarily banned.",
    codes: ["rate_limited", "api_key_banned"],
    headers: retryAfter,
  },
  500: { description: "Unexpected failure.", codes: ["internal_error"] },
  503: {
    description: "A storage dependency is unavailable; retry later.",
    codes: ["unavailable"],
    headers: retryAfter,
  },
};

/** The documented error replies for the given statuses, all with the Error body. */
export function errorResponses(
  ...statuses: (keyof typeof errorDescriptions)[]
): RouteConfig["responses"] {
  return Object.fromEntries(
    statuses.map((status) => {
      const entry = errorDescriptions[status];
      if (!entry) throw new Error(`no error description for ${status}`);
      const example = entry.codes[0] as ErrorCode;
      return [
        status,
        {
          description: `${entry.description} Codes: ${entry.codes.map((code) => `\`${code}\``).join(", ")}.`,
          headers: { ...commonHeaders, ...entry.headers },
          content: {
            "application/json": {
              schema: ErrorSchema,
              example: { code: example, message: entry.description, status: errorStatus[example] },
            },
          },
        },
      ];
    }),
  );
}
