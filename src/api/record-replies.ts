import type { Context } from "hono";
import { ApiError } from "../errors.ts";

/**
 * The replies that carry one record a client may change (an animal, a
 * category, a shelter): the record, its `ETag` its `etag`.
 */

/** The record as it is now, its `ETag` its `etag`. */
export function recordReply<T extends { etag: string }, S extends 200 | 201>(
  c: Context,
  record: T,
  status: S,
) {
  c.header("ETag", record.etag);
  return c.json(record, status);
}

/** The record a read found, or 404 in the words of its path. */
export function foundReply<T extends { etag: string }>(
  c: Context,
  record: T | undefined,
  notFound: string,
) {
  if (!record) throw new ApiError("not_found", notFound);
  return recordReply(c, record, 200);
}

/** The record a request made: 201, with its address below `collection`. */
export function createdReply<T extends { id: number; etag: string }>(
  c: Context,
  record: T,
  collection: string,
) {
  c.header("Location", `${collection}/${record.id}`);
  return recordReply(c, record, 201);
}
