import type { RouteConfig } from "@hono/zod-openapi";
import { type ErrorBody, type ErrorCode, ErrorSchema, errorStatus } from "../errors.ts";

/** A response header as documented; `required` says whether every such reply carries it. */
export type ResponseHeader = {
  description: string;
  required: boolean;
  schema: {
    type: "string" | "integer";
    minimum?: number;
    pattern?: string;
    enum?: string[];
  };
  example: string | number;
};

export type ResponseHeaders = Record<string, ResponseHeader>;

const stringHeader = (
  description: string,
  example: string,
  extra: Omit<ResponseHeader["schema"], "type"> = {},
): ResponseHeader => ({
  description,
  required: true,
  schema: { type: "string", ...extra },
  example,
});

const integerHeader = (description: string, example: number): ResponseHeader => ({
  description,
  required: true,
  schema: { type: "integer", minimum: 0 },
  example,
});

/** Marks a documented header as present only on some replies of that status. */
export const optionalHeader = (header: Omit<ResponseHeader, "required">): ResponseHeader => ({
  ...header,
  required: false,
});

/** Rate-limit state, on every /v1 reply that went through the limiter (errors included). */
export const rateLimitHeaders: ResponseHeaders = {
  "X-RateLimit-Limit": integerHeader(
    "Requests allowed in the window (minute or day) with the fewest left; for a request without a valid key, the client IP's keyless budget.",
    60,
  ),
  "X-RateLimit-Remaining": integerHeader("Requests left in that window.", 59),
  "X-RateLimit-Reset": integerHeader(
    "Unix time, in seconds, at which that window resets.",
    1767225660,
  ),
  "RateLimit-Policy": stringHeader(
    "The windows in force (IETF RateLimit header fields): quota `q` per window of `w` seconds.",
    '"minute";q=60;w=60, "day";q=1000;w=86400',
  ),
  RateLimit: stringHeader(
    "The tighter window: requests left (`r`) and seconds until it resets (`t`).",
    '"minute";r=59;t=41',
  ),
};

/** Headers on every /v1 reply, errors included. */
export const commonHeaders: ResponseHeaders = {
  "X-Request-Id": stringHeader(
    "Identifies the request in logs (the incoming cf-ray where present, else a fresh UUID).",
    "8f2b6c3e-4d1a-4f7b-9c2e-1a2b3c4d5e6f",
  ),
  ...rateLimitHeaders,
  "Cache-Control": stringHeader("API replies are never cached.", "no-store", {
    enum: ["no-store"],
  }),
  "X-Content-Type-Options": stringHeader("Browsers must not sniff another type.", "nosniff", {
    enum: ["nosniff"],
  }),
};

/** A storage fault can strike before the limiter has answered, so 5xx replies may lack its headers. */
const faultHeaders: ResponseHeaders = Object.fromEntries(
  Object.entries(commonHeaders).map(([name, header]) => [
    name,
    name in rateLimitHeaders ? optionalHeader(header) : header,
  ]),
);

const retryAfter: ResponseHeaders = {
  "Retry-After": {
    description: "Whole seconds to wait before retrying (at least 1).",
    required: true,
    schema: { type: "integer", minimum: 1 },
    example: 30,
  },
};

interface ErrorDescription {
  description: string;
  codes: ErrorCode[];
  headers?: ResponseHeaders;
}

const errorDescriptions: Record<number, ErrorDescription> = {
  400: {
    description: "The request is not valid; `details` says which field.",
    codes: ["invalid_request", "invalid_json"],
  },
  401: {
    description: "API key missing or invalid.",
    codes: ["unauthorized"],
    headers: {
      "WWW-Authenticate": stringHeader(
        'The bearer challenge; `error="invalid_token"` is added when a key was sent.',
        'Bearer realm="petstore", error="invalid_token"',
      ),
    },
  },
  404: { description: "No such resource.", codes: ["not_found"] },
  405: {
    description: "The method is not served at this path.",
    codes: ["method_not_allowed"],
    headers: { Allow: stringHeader("The methods served here.", "GET, HEAD") },
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

/** One example body per code, so the reference shows each way a status can be reached. */
const errorExamples: Record<ErrorCode, ErrorBody> = {
  invalid_request: {
    code: "invalid_request",
    message: "The request is not valid. limit: Too big: expected number to be <=100",
    status: 400,
    details: [{ path: "limit", message: "Too big: expected number to be <=100" }],
  },
  invalid_json: {
    code: "invalid_json",
    message: "The request body is not valid JSON.",
    status: 400,
  },
  unauthorized: {
    code: "unauthorized",
    message: "A valid API key is required: send Authorization: Bearer <key>.",
    status: 401,
  },
  not_found: { code: "not_found", message: "No animal has this identifier.", status: 404 },
  method_not_allowed: {
    code: "method_not_allowed",
    message: "DELETE is not allowed here; use GET, HEAD.",
    status: 405,
  },
  limit_reached: {
    code: "limit_reached",
    message: "This account already has as many as it may; remove one first.",
    status: 409,
  },
  gone: {
    code: "gone",
    message: "This operation was removed on Thu, 05 Dec 2030 00:00:00 GMT; use /v1/pets instead.",
    status: 410,
  },
  payload_too_large: {
    code: "payload_too_large",
    message: "The request body is larger than 16 KiB.",
    status: 413,
  },
  unsupported_media_type: {
    code: "unsupported_media_type",
    message: "Send the body as JSON with Content-Type: application/json.",
    status: 415,
  },
  idempotency_key_reused: {
    code: "idempotency_key_reused",
    message: "This Idempotency-Key was already used with a different body.",
    status: 422,
  },
  rate_limited: {
    code: "rate_limited",
    message: "Rate limit exceeded; retry after the time in Retry-After.",
    status: 429,
  },
  api_key_banned: {
    code: "api_key_banned",
    message:
      "This API key is temporarily banned for repeated requests over its rate limit; retry after the time in Retry-After.",
    status: 429,
  },
  internal_error: {
    code: "internal_error",
    message: "An unexpected error occurred.",
    status: 500,
  },
  unavailable: {
    code: "unavailable",
    message: "A storage dependency is unavailable; retry later.",
    status: 503,
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
      for (const code of entry.codes) {
        if (errorStatus[code] !== status) throw new Error(`${code} is not a ${status} code`);
      }
      return [
        status,
        {
          description: `${entry.description} Codes: ${entry.codes.map((code) => `\`${code}\``).join(", ")}.`,
          headers: { ...(status >= 500 ? faultHeaders : commonHeaders), ...entry.headers },
          content: {
            "application/json": {
              schema: ErrorSchema,
              examples: Object.fromEntries(
                entry.codes.map((code) => [code, { value: errorExamples[code] }]),
              ),
            },
          },
        },
      ];
    }),
  );
}

type Responses = RouteConfig["responses"];

function mapHeaders<R extends Responses>(
  responses: R,
  change: (headers: Record<string, unknown>) => Record<string, unknown>,
): R {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) => {
      if ("$ref" in response) return [status, response];
      const headers = (response.headers ?? {}) as Record<string, unknown>;
      return [status, { ...response, headers: change(headers) }];
    }),
  ) as R;
}

/** Adds headers to every reply of an operation (e.g. the deprecation marks on getPet). */
export function withHeaders<R extends Responses>(responses: R, added: ResponseHeaders): R {
  return mapHeaders(responses, (headers) => ({ ...headers, ...added }));
}
