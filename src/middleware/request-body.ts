import type { Context } from "hono";
import { bodyLimit } from "hono/body-limit";
import { isJsonMediaType } from "../api/request-bodies.ts";
import { MAX_JSON_BODY_BYTES, type OperatorRoute } from "../api/route-table.ts";
import type { AppEnv } from "../context.ts";
import { ApiError, messages } from "../errors.ts";
import { strictUtf8Decoder } from "../utils/utf8.ts";
import { findDuplicateKey } from "./json-duplicate-keys.ts";

/** A Content-Type of exactly this media type, parameters allowed. */
const mediaTypeHeader = (mediaType: string) =>
  new RegExp(`^${mediaType.replace(/[.+*?^$()[\]{}|\\/]/g, "\\$&")}[ \\t]*(?:;.*)?$`, "i");

/** The code of a body refused as cut short: `invalid_json` where JSON was to come. */
type BodyCode = "invalid_json" | "invalid_request";

/**
 * Refuses a body over `maxSize` (413), then reads the whole body into Hono's
 * body cache, where whatever follows finds it. Without a Content-Length (a
 * chunked body) hono/body-limit reads the body itself to count it. A client
 * that stopped sending (fewer bytes than its Content-Length, or mid-chunk)
 * gets a 400 with `code`: its request, not a fault of ours.
 */
function readWithin(maxSize: number, code: BodyCode): (c: Context<AppEnv>) => Promise<void> {
  const limit = bodyLimit({
    maxSize,
    onError: () => {
      throw new ApiError("payload_too_large", messages.payloadTooLarge(maxSize));
    },
  });
  return async (c) => {
    try {
      await limit(c, async () => {
        await c.req.arrayBuffer();
      });
    } catch (error) {
      if (error instanceof ApiError) throw error;
      throw new ApiError(code, messages.bodyCutShort);
    }
  };
}

/**
 * Rejects what the schema validator cannot describe: bytes that are not UTF-8,
 * text that is not JSON, and objects that repeat a key. The decoded text and
 * the value parsed from it go into Hono's body cache, so the validator takes
 * the value without decoding or parsing again.
 */
async function requireJsonSyntax(c: Context<AppEnv>): Promise<void> {
  const bytes = await c.req.arrayBuffer();
  if (bytes.byteLength === 0) throw new ApiError("invalid_json", messages.emptyBody);
  let text: string;
  try {
    text = strictUtf8Decoder.decode(bytes);
  } catch {
    throw new ApiError("invalid_json", messages.notUtf8);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new ApiError("invalid_json", messages.invalidJson);
  }
  const duplicate = findDuplicateKey(text);
  if (duplicate !== undefined) {
    throw new ApiError("invalid_json", messages.duplicateField(duplicate.slice(0, 100)));
  }
  // Hono's cache holds promises though its type says otherwise.
  const cache = c.req.bodyCache as { text?: Promise<string>; json?: Promise<unknown> };
  cache.text = Promise.resolve(text);
  cache.json = Promise.resolve(value);
}

/**
 * The checks a route's body passes before schema validation, read from the
 * media types its request declares, as one call: media type (415), then size
 * (413), then the body read whole (400 when it ends early, before its
 * Content-Length or inside a chunk), then, for JSON, syntax (400
 * invalid_json). JSON bodies take 16 KiB unless the route states
 * `maxBodyBytes`; any other body must state it, and its handler finds it
 * read. Undefined for a route that takes no body.
 */
export function bodyChecks(
  route: OperatorRoute,
): ((c: Context<AppEnv>) => Promise<void>) | undefined {
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
  const read = readWithin(maxSize, code);
  return async (c) => {
    const type = c.req.header("Content-Type") ?? "";
    if (!accepted.some((pattern) => pattern.test(type))) {
      throw new ApiError("unsupported_media_type", refusal);
    }
    await read(c);
    if (json) await requireJsonSyntax(c);
  };
}
