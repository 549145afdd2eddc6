import type { RouteConfig } from "@hono/zod-openapi";
import { type ErrorBody, type ErrorCode, ErrorSchema, errorStatus, messages } from "../errors.ts";

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
  409: {
    description: "The request conflicts with the current state of a resource.",
    codes: ["pet_not_available", "invalid_transition", "limit_reached"],
  },
  410: { description: "The operation has been removed.", codes: ["gone"] },
  413: { description: "The body is larger than 16 KiB.", codes: ["payload_too_large"] },
  415: {
    description: "The body is not sent as application/json.",
    codes: ["unsupported_media_type"],
  },
  422: {
    description: "The Idempotency-Key was used with a different body or on another operation.",
    codes: ["idempotency_key_reused"],
  },
  429: {
    description: "Rate limit exceeded, or the key is temporarily banned.",
    codes: ["rate_limited", "api_key_banned"],
    headers: retryAfter,
  },
  500: { description: "Unexpected failure.", codes: ["internal_error"] },
  503: {
    description: "A storage service did not answer; retry after the time in Retry-After.",
    codes: ["unavailable"],
    headers: retryAfter,
  },
};

/** A sample of what `rejectInvalid` says about a query value out of bounds. */
const limitTooBig = { path: "limit", message: "Too big: expected number to be <=100" };

/**
 * One example body per code, so the reference shows each way a status can be
 * reached, in the very words the code sends.
 */
const errorExamples: Record<ErrorCode, ErrorBody> = {
  invalid_request: {
    code: "invalid_request",
    message: messages.invalidRequest(`${limitTooBig.path}: ${limitTooBig.message}`),
    status: 400,
    details: [limitTooBig],
  },
  invalid_json: { code: "invalid_json", message: messages.invalidJson, status: 400 },
  unauthorized: { code: "unauthorized", message: messages.unauthorized, status: 401 },
  not_found: { code: "not_found", message: messages.notFound, status: 404 },
  method_not_allowed: {
    code: "method_not_allowed",
    message: messages.methodNotAllowed("DELETE", "GET, HEAD"),
    status: 405,
  },
  pet_not_available: {
    code: "pet_not_available",
    message: messages.petNotAvailable("pending"),
    status: 409,
  },
  invalid_transition: {
    code: "invalid_transition",
    message: messages.invalidTransition("completed", "cancelled"),
    status: 409,
  },
  limit_reached: {
    code: "limit_reached",
    message: messages.limitReached(10, "webhook endpoints", "delete one"),
    status: 409,
  },
  gone: {
    code: "gone",
    message: messages.gone("<the sunset date>", "<its successor>"),
    status: 410,
  },
  payload_too_large: {
    code: "payload_too_large",
    message: messages.payloadTooLarge,
    status: 413,
  },
  unsupported_media_type: {
    code: "unsupported_media_type",
    message: messages.unsupportedMediaType,
    status: 415,
  },
  idempotency_key_reused: {
    code: "idempotency_key_reused",
    message: messages.idempotencyKeyReused,
    status: 422,
  },
  rate_limited: { code: "rate_limited", message: messages.rateLimited, status: 429 },
  api_key_banned: { code: "api_key_banned", message: messages.apiKeyBanned, status: 429 },
  internal_error: { code: "internal_error", message: messages.internalError, status: 500 },
  unavailable: { code: "unavailable", message: messages.unavailable, status: 503 },
};

/**
 * What a route documents about one error status: its codes and description
 * narrowed to those the route can send (a 409 says which conflict), and the
 * message it sends instead of the usual example.
 */
export interface DocumentedStatus {
  status: number;
  codes?: readonly ErrorCode[];
  description?: string;
  message?: string;
}

/** A documented status, a status with the message its route sends instead of the usual one, or the full form. */
export type DocumentedError = number | readonly [number, string] | DocumentedStatus;

function normalise(documented: DocumentedError): DocumentedStatus {
  if (typeof documented === "number") return { status: documented };
  if ("status" in documented) return documented;
  const [status, message] = documented;
  return { status, message };
}

/** The documented error replies for the given statuses, all with the Error body. */
export function errorResponses(statuses: readonly DocumentedError[]): RouteConfig["responses"] {
  return Object.fromEntries(
    statuses.map((documented) => {
      const { status, message, ...narrowed } = normalise(documented);
      const entry = errorDescriptions[status];
      if (!entry) throw new Error(`no error description for ${status}`);
      const codes = narrowed.codes ?? entry.codes;
      for (const code of codes) {
        if (errorStatus[code] !== status) throw new Error(`${code} is not a ${status} code`);
      }
      const examples = codes.map((code) => {
        const example = errorExamples[code];
        return [code, { value: message === undefined ? example : { ...example, message } }];
      });
      return [
        status,
        {
          description: `${narrowed.description ?? entry.description} Codes: ${codes.map((code) => `\`${code}\``).join(", ")}.`,
          headers: { ...(status >= 500 ? faultHeaders : commonHeaders), ...entry.headers },
          content: {
            "application/json": { schema: ErrorSchema, examples: Object.fromEntries(examples) },
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
