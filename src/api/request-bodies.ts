import type { z } from "@hono/zod-openapi";
import { messages } from "../errors.ts";
import type { DocumentedError } from "./responses.ts";

/** `application/json`, `application/merge-patch+json` and the like. */
export const isJsonMediaType = (mediaType: string) =>
  /^application\/(?:[\w.-]+\+)?json$/i.test(mediaType);

/** A required JSON body of one schema. */
export function jsonBody<S extends z.ZodType>(schema: S) {
  return { required: true, content: { "application/json": { schema } } };
}

/** The media types of a partial change: plain JSON, or a JSON Merge Patch (RFC 7396), read alike. */
const PATCH_TYPES = ["application/json", "application/merge-patch+json"];

/** A partial change's required body, one schema under either of its media types. */
export function patchBody<S extends z.ZodType>(schema: S) {
  return {
    required: true,
    content: {
      "application/json": { schema },
      "application/merge-patch+json": { schema },
    },
  };
}

/** The 415 of a partial change's route, naming the media types it takes. */
export const patchTypeRefused: DocumentedError = {
  status: 415,
  message: messages.unsupportedBodyType(PATCH_TYPES),
};
