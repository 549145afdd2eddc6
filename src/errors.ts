import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { describeError, log } from "./logging.ts";

/** Every error code a client can see, with the HTTP status it travels with. */
export const errorStatus = {
  invalid_request: 400,
  invalid_json: 400,
  unauthorized: 401,
  insufficient_scope: 403,
  address_not_allowed: 403,
  not_owner: 403,
  not_found: 404,
  method_not_allowed: 405,
  pet_not_available: 409,
  invalid_transition: 409,
  limit_reached: 409,
  order_open: 409,
  category_exists: 409,
  category_in_use: 409,
  shelter_in_use: 409,
  gone: 410,
  payload_too_large: 413,
  precondition_failed: 412,
  unsupported_media_type: 415,
  unknown_category: 422,
  unknown_shelter: 422,
  idempotency_key_reused: 422,
  rate_limited: 429,
  api_key_banned: 429,
  internal_error: 500,
  unavailable: 503,
} as const;

export type ErrorCode = keyof typeof errorStatus;

/** A size as people write it: `16 KiB`, `5 MiB`. */
function byteSize(bytes: number): string {
  if (bytes % 1024 ** 2 === 0) return `${bytes / 1024 ** 2} MiB`;
  if (bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}

/**
 * What errors say. The code that refuses a request and the examples in the
 * OpenAPI document both read these, so the reference shows what is sent.
 */
export const messages = {
  invalidJson: "The request body is not valid JSON.",
  emptyBody: "The request body is empty; send a JSON object.",
  bodyCutShort: "The request body ended before all of it arrived; send it again, whole.",
  notUtf8: "The request body is not valid UTF-8.",
  duplicateField: (name: string) => `The request body names the field "${name}" twice.`,
  invalidRequest: (summary: string) => `The request is not valid. ${summary}`,
  invalidCursor: "The cursor is not valid; follow the Link header of the previous page.",
  invalidConsistencyToken:
    "Not a token this service sent to your account: send back a Consistency-Token as a reply carried it, or none.",
  invalidIfMatch:
    'The If-Match header is not valid: send "*" or a comma-separated list of entity tags such as "3".',
  unauthorized: "A valid API key is required: send Authorization: Bearer <key>.",
  insufficientScope: (missing: readonly string[]) =>
    `This API key lacks the scope${missing.length === 1 ? "" : "s"} ${missing.join(" and ")}, which this request needs; use a key made with ${missing.length === 1 ? "it" : "them"}.`,
  addressNotAllowed:
    "This API key may not be used from this address: only from the address ranges it was made with.",
  notFound: "No resource exists at this address.",
  methodNotAllowed: (method: string, allow: string) =>
    `${method} is not allowed here; use ${allow}.`,
  gone: (sunset: string, successor: string) =>
    `This operation was removed on ${sunset}; use ${successor} instead.`,
  notOwner: (thing: string) =>
    `This ${thing} belongs to another account; only that account's keys may change it.`,
  preconditionFailed: (thing: string) =>
    `If-Match names no current version of this ${thing}: read it again and send its etag.`,
  orderOpen: (orderId: number) =>
    `Order ${orderId} is placed for this animal: its status moves with that order, and it cannot be deleted until the order is completed or cancelled.`,
  categoryExists: (id: number) =>
    `Category ${id} already has this name (names are compared ignoring case and accents).`,
  categoryInUse: "Animals still belong to this category: move or delete them first.",
  unknownCategory: "No category has this identifier.",
  shelterInUse: "Animals still live in this shelter: move or delete them first.",
  unknownShelter: "No shelter has this identifier.",
  petNotAvailable: (status: string) =>
    `This animal is ${status}; only an available animal can be ordered.`,
  invalidTransition: (status: string, moved: string) =>
    `This order is ${status}; only a placed order can be ${moved}.`,
  limitReached: (count: number, things: string, remedy: string) =>
    `This account already has ${count} ${things}, the most it may have; ${remedy} first.`,
  photoLimitReached: (count: number) =>
    `This animal already has ${count} photos, the most it may have; delete one first.`,
  payloadTooLarge: (maxBytes: number) => `The request body is larger than ${byteSize(maxBytes)}.`,
  unsupportedMediaType: "Send the body as JSON with Content-Type: application/json.",
  unsupportedBodyType: (mediaTypes: readonly string[]) =>
    `Send the body with Content-Type: ${mediaTypes.join(" or ")}.`,
  notThatImage: (mediaType: string) =>
    `The body does not begin as ${mediaType} does; send the image with the Content-Type of its own format (image/jpeg, image/png or image/webp).`,
  idempotencyKeyReused:
    "This Idempotency-Key was already used with a different body or on another operation; send a new key with a new request.",
  rateLimited: "Rate limit exceeded; retry after the time in Retry-After.",
  apiKeyBanned:
    "This API key is temporarily banned for repeated requests over its rate limit; retry after the time in Retry-After.",
  internalError: "An unexpected error occurred.",
  unavailable: "A storage service is briefly unavailable; retry shortly.",
} as const;

const ErrorDetailSchema = z.object({
  path: z.string().openapi({ example: "name" }),
  message: z.string().openapi({ example: "Too small: expected string to have >=1 characters" }),
});

export const ErrorSchema = z
  .object({
    code: z.enum(Object.keys(errorStatus) as [ErrorCode, ...ErrorCode[]]),
    message: z.string(),
    status: z.number().int().min(400).max(599),
    details: z.array(ErrorDetailSchema).optional(),
  })
  .openapi("Error", {
    example: { code: "not_found", message: "No animal has this identifier.", status: 404 },
  });

export type ErrorBody = z.infer<typeof ErrorSchema>;
export type ErrorDetail = z.infer<typeof ErrorDetailSchema>;

/** The one error type handlers and middleware throw; `onError` renders it. */
export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: (typeof errorStatus)[ErrorCode];
  readonly details: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;

  constructor(
    code: ErrorCode,
    message: string,
    options: { details?: ErrorDetail[]; headers?: Record<string, string> } = {},
  ) {
    super(message);
    this.name = "ApiError";
    this.code = code;
    this.status = errorStatus[code];
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  toBody(): ErrorBody {
    const body: ErrorBody = { code: this.code, message: this.message, status: this.status };
    if (this.details) body.details = this.details;
    return body;
  }
}

export function errorResponse(c: Context, error: ApiError): Response {
  for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
  return c.json(error.toBody(), error.status);
}

/**
 * `onError`: every failure leaves as the Error body; only the unexpected ones
 * are logged as errors. Hono's validators throw HTTP errors for malformed JSON
 * and a media type gate, mapped onto our codes.
 */
export function handleError(error: unknown, c: Context): Response {
  let apiError = new ApiError("internal_error", messages.internalError);
  if (error instanceof ApiError) apiError = error;
  else if (error instanceof HTTPException && error.status === 400) {
    apiError = new ApiError("invalid_json", messages.invalidJson);
  } else if (error instanceof HTTPException && error.status === 415) {
    apiError = new ApiError("unsupported_media_type", messages.unsupportedMediaType);
  }
  if (apiError.code === "internal_error") {
    log("error", "unhandled error", { requestId: c.get("requestId"), error: describeError(error) });
  }
  return errorResponse(c, apiError);
}

export function handleNotFound(c: Context): Response {
  return errorResponse(c, new ApiError("not_found", messages.notFound));
}
