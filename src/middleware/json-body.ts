import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";
import { every } from "hono/combine";
import type { AppEnv } from "../env.ts";
import { ApiError, messages } from "../errors.ts";
import { findDuplicateKey } from "./json-duplicate-keys.ts";

export const MAX_BODY_BYTES = 16 * 1024;

const JSON_MEDIA_TYPE = /^application\/json[ \t]*(?:;.*)?$/i;

function requireJsonMediaType(): MiddlewareHandler<AppEnv> {
  return async function requireJsonMediaType(c, next) {
    if (!JSON_MEDIA_TYPE.test(c.req.header("Content-Type") ?? "")) {
      throw new ApiError("unsupported_media_type", messages.unsupportedMediaType);
    }
    await next();
  };
}

function limitBody(): MiddlewareHandler<AppEnv> {
  return bodyLimit({
    maxSize: MAX_BODY_BYTES,
    onError: () => {
      throw new ApiError("payload_too_large", messages.payloadTooLarge);
    },
  });
}

/**
 * Rejects what the schema validator cannot describe: bytes that are not UTF-8,
 * text that is not JSON, and objects that repeat a key. The decoded text goes
 * into Hono's body cache, so the validator parses it without reading again.
 */
function requireJsonSyntax(): MiddlewareHandler<AppEnv> {
  return async function requireJsonSyntax(c, next) {
    let bytes: ArrayBuffer;
    try {
      bytes = await c.req.arrayBuffer();
    } catch {
      // The client stopped sending (fewer bytes than its Content-Length, or a
      // dropped connection): its request, not a fault of ours.
      throw new ApiError("invalid_json", messages.bodyCutShort);
    }
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
 * Media type (415), then size (413), then syntax (400 invalid_json), before
 * schema validation. Registered in each router beside the routes that take a
 * body (`router.post(path, jsonBody())`), not in their definitions: those are
 * shared with the OpenAPI document, which Node prints without the Worker.
 */
export function jsonBody(): MiddlewareHandler<AppEnv> {
  return every(requireJsonMediaType(), limitBody(), requireJsonSyntax());
}
