import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { every } from "hono/combine";
import { MAX_JSON_BODY_BYTES, type OperatorRoute } from "../api/route-table.ts";
import type { AppEnv } from "../context.ts";
import { ApiError, messages } from "../errors.ts";
import { findDuplicateKey } from "./json-duplicate-keys.ts";

/** `application/json`, `application/merge-patch+json` and the like. */
const isJsonMediaType = (mediaType: string) => /^application\/(?:[\w.-]+\+)?json$/i.test(mediaType);

/** A Content-Type of exactly this media type, parameters allowed. */
const mediaTypeHeader = (mediaType: string) =>
  new RegExp(`^${mediaType.replace(/[.+*?^$()[\]{}|\\/]/g, "\\$&")}[ \\t]*(?:;.*)?$`, "i");

/** The code of a body refused as cut short: `invalid_json` where JSON was to come. */
type BodyCode = "invalid_json" | "invalid_request";

/**
 * Refuses a body over `maxSize` (413). Without a Content-Length (a chunked
 * body) hono/body-limit reads the body itself to count it: a client that
 * stopped sending mid-chunk then gets a 400 with `code`, as `readWhole`
 * gives one that stopped short of its Content-Length.
 */
function limitSize(maxSize: number, code: BodyCode): MiddlewareHandler<AppEnv> {
  const limit = bodyLimit({
    maxSize,
    onError: () => {
      throw new ApiError("payload_too_large", messages.payloadTooLarge(maxSize));
    },
  });
  return async function limitSize(c, next) {
    let counted = false;
    try {
      await limit(c, () => {
        counted = true;
        return next();
      });
    } catch (error) {
      if (counted || error instanceof ApiError) throw error;
      throw new ApiError(code, messages.bodyCutShort);
    }
  };
}

/**
 * Reads the whole body into Hono's body cache, where whatever follows finds
 * it. A client that stopped sending (fewer bytes than its Content-Length)
 * gets a 400 with `code`: its request, not a fault of ours.
 */
function readWhole(code: BodyCode): MiddlewareHandler<AppEnv> {
  return async function readWhole(c, next) {
    try {
      await c.req.arrayBuffer();
    } catch {
      throw new ApiError(code, messages.bodyCutShort);
    }
    await next();
  };
}

/**
 * Rejects what the schema validator cannot describe: bytes that are not UTF-8,
 * text that is not JSON, and objects that repeat a key. The decoded text goes
 * into Hono's body cache, so the validator parses it without reading again.
 */
function requireJsonSyntax(): MiddlewareHandler<AppEnv> {
  return async function requireJsonSyntax(c, next) {
    const bytes = await c.req.arrayBuffer();
    if (bytes.byteLength === 0) throw new ApiError("invalid_json", messages.emptyBody);
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
    } catch {
      throw new ApiError("invalid_json", messages.notUtf8);
    }
    try {
      JSON.parse(text);
    } catch {
      throw new ApiError("invalid_json", messages.invalidJson);
    }
    const duplicate = findDuplicateKey(text);
    if (duplicate !== undefined) {
      throw new ApiError("invalid_json", messages.duplicateField(duplicate.slice(0, 100)));
    }
    // Hono's cache holds promises though its type says string; caching the
    // decoded text spares the validator decoding the bytes a second time.
    (c.req.bodyCache as { text?: Promise<string> }).text = Promise.resolve(text);
    await next();
  };
}

/**
 * The checks a route's body passes before schema validation, read from the
 * media types its request declares: media type (415), then size (413), then
 * the body read whole (400 when it ends early, before its Content-Length or
 * inside a chunk), then, for JSON, syntax (400
 * invalid_json). JSON bodies take 16 KiB unless the route states
 * `maxBodyBytes`; any other body must state it, and its handler finds it
 * read. Undefined for a route that takes no body.
 */
export function requestBody(route: OperatorRoute): MiddlewareHandler<AppEnv> | undefined {
  const mediaTypes = Object.keys(route.request?.body?.content ?? {});
  if (mediaTypes.length === 0) return undefined;
  const json = mediaTypes.every(isJsonMediaType);
  const maxSize = route.maxBodyBytes ?? (json ? MAX_JSON_BODY_BYTES : undefined);
  if (maxSize === undefined) {
    throw new Error(`${route.method} ${route.path} takes ${mediaTypes} but states no maxBodyBytes`);
  }
  const accepted = mediaTypes.map(mediaTypeHeader);
  const code: BodyCode = json ? "invalid_json" : "invalid_request";
  const refusal =
    json && mediaTypes.length === 1
      ? messages.unsupportedMediaType
      : messages.unsupportedBodyType(mediaTypes);
  return every(
    async function requireMediaType(c, next) {
      const type = c.req.header("Content-Type") ?? "";
      if (!accepted.some((pattern) => pattern.test(type))) {
        throw new ApiError("unsupported_media_type", refusal);
      }
      await next();
    },
    limitSize(maxSize, code),
    readWhole(code),
    ...(json ? [requireJsonSyntax()] : []),
  );
}
