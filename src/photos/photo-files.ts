import { Hono } from "hono";
import { isEntityTagList } from "../api/entity-tags.ts";
import { PHOTOS_PATH } from "../api/public-paths.ts";
import type { AppEnv } from "../context.ts";
import { ApiError, messages } from "../errors.ts";
import { isPhotoId } from "./photos.schemas.ts";

/** A photo never changes (a new one gets a new id), so any cache may keep it for a year. */
const FOREVER = "public, max-age=31536000, immutable";

/**
 * The photos themselves, for any `<img>`: no key, no rate limit (deployed,
 * Cloudflare's cache stands in front, as for static files). The bytes
 * stream from the bucket as they arrive, never held whole; `HEAD` reads
 * only the object's metadata. A photo that is not served is 404, with the
 * Error body. The response chain answers `If-None-Match` with 304 and adds
 * CORS.
 */
export function photoFileRoutes(): Hono<AppEnv> {
  const routes = new Hono<AppEnv>();
  routes.get(`${PHOTOS_PATH}/:photoId`, async (c) => {
    const id = c.req.param("photoId");
    const withBody = c.req.method !== "HEAD";
    // The bucket leaves out the body when the client's tags name the photo, rather than
    // sending one the response chain's 304 would cancel unread.
    const ifNoneMatch = c.req.header("If-None-Match");
    const unless = ifNoneMatch && isEntityTagList(ifNoneMatch) ? ifNoneMatch : undefined;
    const photo = isPhotoId(id)
      ? await c.get("services").photos.get(id, withBody, unless)
      : undefined;
    if (!photo) throw new ApiError("not_found", messages.notFound);
    c.header("Content-Type", photo.contentType);
    c.header("ETag", photo.etag);
    c.header("Cache-Control", FOREVER);
    // What the bytes claim to be is never run or sniffed, whatever they hold.
    c.header("Content-Security-Policy", "default-src 'none'");
    c.header("Content-Length", String(photo.size));
    return photo.body ? c.body(photo.body, 200) : c.body(null, 200);
  });
  return routes;
}
