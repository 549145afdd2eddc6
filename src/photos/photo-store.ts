import { guardStorage } from "../storage/storage-guard.ts";
import type { PhotoType } from "./photo-formats.ts";

/** A stored photo as a reply serves it: its body, when one was asked for, streams from the bucket. */
interface PhotoObject {
  contentType: string;
  size: number;
  /** The object's entity tag, quotes included. */
  etag: string;
  body: ReadableStream | undefined;
}

/**
 * The bucket of photos' bytes, each object named by its photo's id. The
 * only thing that touches the binding; every call is guarded (a failure or
 * a hang is a 503).
 */
export interface PhotoStore {
  put(id: string, bytes: ArrayBuffer, contentType: PhotoType): Promise<void>;
  /**
   * The object with its body (`withBody`) or without; undefined when there is none. The
   * body is left out too when `ifNoneMatch` (a well-formed If-None-Match) names its tag.
   */
  get(id: string, withBody: boolean, ifNoneMatch?: string): Promise<PhotoObject | undefined>;
  /** Deletes the objects (at most 1,000); a name with no object is no error. */
  delete(ids: readonly string[]): Promise<void>;
}

/** The most keys one delete call takes. */
export const MAX_DELETES_PER_CALL = 1000;

function objectOf(object: R2Object, body: ReadableStream | undefined): PhotoObject {
  return {
    contentType: object.httpMetadata?.contentType ?? "application/octet-stream",
    size: object.size,
    etag: object.httpEtag,
    body,
  };
}

export function photoStore(bucket: R2Bucket): PhotoStore {
  return {
    async put(id, bytes, contentType) {
      await guardStorage("R2", () => bucket.put(id, bytes, { httpMetadata: { contentType } }));
    },
    async get(id, withBody, ifNoneMatch) {
      if (!withBody) {
        const object = await guardStorage("R2", () => bucket.head(id));
        return object ? objectOf(object, undefined) : undefined;
      }
      const onlyIf = ifNoneMatch ? new Headers({ "If-None-Match": ifNoneMatch }) : undefined;
      const object = await guardStorage("R2", () => bucket.get(id, { onlyIf }));
      if (!object) return undefined;
      return objectOf(object, "body" in object ? object.body : undefined);
    },
    async delete(ids) {
      if (ids.length > 0) await guardStorage("R2", () => bucket.delete([...ids]));
    },
  };
}
