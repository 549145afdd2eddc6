import type { RouteConfig, z } from "@hono/zod-openapi";
import { type ErrorCode, ErrorSchema, errorStatus, messages } from "../errors.ts";
import { CONSISTENCY_TOKEN_PATTERN, EXAMPLE_TOKEN } from "./consistency-token.ts";
import { MAX_JSON_BODY_BYTES } from "./route-table.ts";

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

export const stringHeader = (
  description: string,
  example: string,
  extra: Omit<ResponseHeader["schema"], "type"> = {},
): ResponseHeader => ({
  description,
  required: true,
  schema: { type: "string", ...extra },
  example,
});

const integerHeader = (description: string, example: number, minimum = 0): ResponseHeader => ({
  description,
  required: true,
  schema: { type: "integer", minimum },
  example,
});

/** Marks a documented header as present only on some replies of that status. */
export const optionalHeader = (header: Omit<ResponseHeader, "required">): ResponseHeader => ({
  ...header,
  required: false,
});

/** Rate-limit state, on every /v1 reply that went through the limiter (errors included). */
const rateLimitHeaders: ResponseHeaders = {
  "X-RateLimit-Limit": integerHeader(
    "Requests allowed in the window (minute or day) with the fewest left; for a request without a valid key, the client IP's keyless budget.",
    60,
  ),
  "X-RateLimit-Remaining": integerHeader("Requests left in that window.", 59),
  "X-RateLimit-Reset": integerHeader(
    "Unix time, in seconds, at which that window resets; while the key is banned, when the ban ends.",
    1767225660,
  ),
  "RateLimit-Policy": stringHeader(
    'The windows in force (IETF RateLimit header fields): quota `q` per window of `w` seconds; while banned, also `"ban";q=0;w=<the ban\'s length>`.',
    '"minute";q=60;w=60, "day";q=1000;w=86400',
  ),
  RateLimit: stringHeader(
    'The tighter window: requests left (`r`) and seconds until it resets (`t`); while banned, `"ban";r=0;t=<seconds left>`.',
    '"minute";r=59;t=41',
  ),
};

/** Headers on every /v1 reply, errors included. */
const everyReplyHeaders: ResponseHeaders = {
  "X-Request-Id": stringHeader(
    "Identifies the request in logs (the incoming cf-ray where present, else a fresh UUID).",
    "8f2b6c3e-4d1a-4f7b-9c2e-1a2b3c4d5e6f",
  ),
  ...rateLimitHeaders,
  "Cache-Control": stringHeader(
    "Replies other than a read's 200 or 304 are never stored.",
    "no-store",
    { enum: ["no-store"] },
  ),
  "X-Content-Type-Options": stringHeader("Browsers must not sniff another type.", "nosniff", {
    enum: ["nosniff"],
  }),
};

/**
 * The headers of every successful /v1 reply. `Consistency-Token` is on
 * errors too, wherever their request reached the database; it is listed on
 * the replies a client reads data from, as the document has little room.
 */
const commonHeaders: ResponseHeaders = {
  ...everyReplyHeaders,
  "Consistency-Token": optionalHeader({
    description:
      "Where the data read or written stands (opaque; errors carry it too). Send it back to read at least this fresh; later writes' tokens sort after earlier ones'.",
    schema: { type: "string", pattern: CONSISTENCY_TOKEN_PATTERN },
    example: EXAMPLE_TOKEN,
  }),
};

/** A storage fault can strike before the limiter has answered, so 5xx replies may lack its headers. */
const faultHeaders: ResponseHeaders = Object.fromEntries(
  Object.entries(everyReplyHeaders).map(([name, header]) => [
    name,
    name in rateLimitHeaders ? optionalHeader(header) : header,
  ]),
);

/** A successful JSON reply: its description, body and headers beyond the common ones. */
export function jsonReply<S extends z.ZodType>(
  description: string,
  schema: S,
  headers: ResponseHeaders = {},
) {
  return {
    description,
    headers: { ...commonHeaders, ...headers },
    content: { "application/json": { schema } },
  };
}

/** A deletion's 204: every deletion answers alike, so the document states it once. */
export const deletedReply = { description: "Deleted.", headers: commonHeaders };

/** On every reply an `Idempotency-Key` can replay. */
export const idempotentReplayedHeader = optionalHeader({
  description: "Present, as `true`, when this is the replay of an earlier response.",
  schema: { type: "string", enum: ["true"] },
  example: "true",
});

export function createdHeaders(location: string, example: string): ResponseHeaders {
  return {
    Location: stringHeader(location, example),
    "Idempotent-Replayed": idempotentReplayedHeader,
  };
}

const retryAfter = {
  "Retry-After": integerHeader("Whole seconds to wait before retrying (at least 1).", 30, 1),
};

/** Each error status: what it means, the codes sent with it, and its own headers. */
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
      "WWW-Authenticate": stringHeader(
        'The bearer challenge; `error="invalid_token"` is added when a key was sent.',
        'Bearer realm="petstore", error="invalid_token"',
      ),
    },
  },
  403: {
    description:
      "The key may not do this: it lacks the operation's scope, or is used from an address outside the ranges it was made with, or the record belongs to another account.",
    codes: ["insufficient_scope", "address_not_allowed", "not_owner"],
    headers: {
      "WWW-Authenticate": optionalHeader({
        description: "With `insufficient_scope` (RFC 6750): the scopes the request needs.",
        schema: { type: "string" },
        example: 'Bearer realm="petstore", error="insufficient_scope", scope="pets:write"',
      }),
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
    codes: [
      "pet_not_available",
      "invalid_transition",
      "limit_reached",
      "order_open",
      "category_exists",
      "category_in_use",
      "shelter_in_use",
    ],
  },
  410: { description: "The operation has been removed.", codes: ["gone"] },
  412: {
    description:
      "`If-Match` names no current version of the record: it changed since it was read. Nothing changed.",
    codes: ["precondition_failed"],
  },
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
 * One example message per code, so the reference shows each way a status can
 * be reached, in the very words the code sends.
 */
const exampleMessages: Record<ErrorCode, string> = {
  invalid_request: messages.invalidRequest(`${limitTooBig.path}: ${limitTooBig.message}`),
  invalid_json: messages.invalidJson,
  unauthorized: messages.unauthorized,
  insufficient_scope: messages.insufficientScope(["pets:write"]),
  address_not_allowed: messages.addressNotAllowed,
  not_owner: messages.notOwner("animal"),
  not_found: messages.notFound,
  method_not_allowed: messages.methodNotAllowed("DELETE", "GET, HEAD"),
  pet_not_available: messages.petNotAvailable("pending"),
  invalid_transition: messages.invalidTransition("completed", "cancelled"),
  limit_reached: messages.limitReached(10, "webhook endpoints", "delete one"),
  order_open: messages.orderOpen(7),
  category_exists: messages.categoryExists(2),
  category_in_use: messages.categoryInUse,
  shelter_in_use: messages.shelterInUse,
  precondition_failed: messages.preconditionFailed("animal"),
  unknown_category: messages.unknownCategory,
  unknown_shelter: messages.unknownShelter,
  gone: messages.gone("<the sunset date>", "<its successor>"),
  payload_too_large: messages.payloadTooLarge(MAX_JSON_BODY_BYTES),
  unsupported_media_type: messages.unsupportedMediaType,
  idempotency_key_reused: messages.idempotencyKeyReused,
  rate_limited: messages.rateLimited,
  api_key_banned: messages.apiKeyBanned,
  internal_error: messages.internalError,
  unavailable: messages.unavailable,
};

/**
 * What a route documents about one error status: its codes and description
 * narrowed to those the route can send (a 409 says which conflict), and the
 * message it sends instead of the usual example (but for the key's 403s,
 * whose words are the same everywhere).
 */
interface DocumentedStatus {
  status: number;
  codes?: readonly ErrorCode[];
  description?: string;
  message?: string;
}

/** A documented status, a status with the message its route sends instead of the usual one, or the full form. */
export type DocumentedError = number | readonly [number, string] | DocumentedStatus;

/** What any operation may answer, whatever it does: the limiter's 429, the service's 500 and 503. */
export const ANY_OPERATION: readonly DocumentedError[] = [429, 500, 503];

/** The 403s any operation can give a key, whatever it does: the same words on every operation. */
export const KEY_REFUSALS: readonly ErrorCode[] = ["insufficient_scope", "address_not_allowed"];

/** The documented error replies for the given statuses, all with the Error body. */
export function errorResponses(statuses: readonly DocumentedError[]): RouteConfig["responses"] {
  return Object.fromEntries(
    statuses.map((documented) => {
      const { status, message, ...narrowed }: DocumentedStatus =
        typeof documented === "number"
          ? { status: documented }
          : "status" in documented
            ? documented
            : { status: documented[0], message: documented[1] };
      const entry = errorDescriptions[status];
      if (!entry) throw new Error(`no error description for ${status}`);
      const codes = narrowed.codes ?? entry.codes;
      for (const code of codes) {
        if (errorStatus[code] !== status) throw new Error(`${code} is not a ${status} code`);
      }
      const examples = codes.map((code) => {
        const details = code === "invalid_request" ? { details: [limitTooBig] } : {};
        const said = KEY_REFUSALS.includes(code) ? undefined : message;
        const value = { code, message: said ?? exampleMessages[code], status, ...details };
        return [code, { value }];
      });
      return [
        status,
        {
          description: `${narrowed.description ?? entry.description} Codes: ${codes.map((code) => `\`${code}\``).join(", ")}.`,
          headers: { ...(status >= 500 ? faultHeaders : everyReplyHeaders), ...entry.headers },
          content: {
            "application/json": { schema: ErrorSchema, examples: Object.fromEntries(examples) },
          },
        },
      ];
    }),
  );
}
