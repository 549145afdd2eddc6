import type { RouteConfig, z } from "@hono/zod-openapi";
import { messages } from "../errors.ts";
import { entityTagHeader } from "./entity-tags.ts";
import {
  ANY_OPERATION,
  createdHeaders,
  type DocumentedError,
  errorResponses,
  jsonReply,
} from "./responses.ts";

/**
 * What the document says of an operation on one record: its refusals in the
 * words of the record's noun, and the replies of a read of it, of its
 * creation and of a change to it.
 */

/** What an operation on one record documents of its refusals: none such, another account's, stale. */
interface RecordRefusals {
  /** No such record, in the words of its path's 404. */
  notFound: DocumentedError;
  /** The key's own 403s, or the record belongs to another account. */
  notOwner: DocumentedError;
  /** `If-Match` names no current version of the record. */
  stale: DocumentedError;
}

/**
 * The refusals of an operation on a record an account owns, in the words of
 * its noun (`animal`, `category`, `shelter`) and its path's 404 message.
 */
export function recordRefusals(noun: string, notFoundMessage: string): RecordRefusals {
  return {
    notFound: [404, notFoundMessage],
    notOwner: {
      status: 403,
      description: `The key lacks this operation's scope or is used from outside its address ranges, or the ${noun} belongs to another account: only that account's keys may change it.`,
      message: messages.notOwner(noun),
    },
    stale: { status: 412, message: messages.preconditionFailed(noun) },
  };
}

/**
 * The errors of an operation on one record that takes no body: no key, no
 * such record, and the limiter's and the service's own.
 */
export function oneRecordErrors(notFound: DocumentedError): RouteConfig["responses"] {
  return errorResponses([401, notFound, ...ANY_OPERATION]);
}

/** The replies of a read of one record: 200 with its body, or oneRecordErrors. */
export function readReplies<S extends z.ZodType>(
  description: string,
  schema: S,
  notFound: DocumentedError,
) {
  return { 200: jsonReply(description, schema), ...oneRecordErrors(notFound) };
}

/** The 201 of a record a request made: the record, its address (`location`, like `example`) and its `ETag`. */
export function createdReply<S extends z.ZodType>(
  description: string,
  schema: S,
  location: string,
  example: string,
) {
  return jsonReply(description, schema, {
    ...createdHeaders(location, example),
    ETag: entityTagHeader,
  });
}

/** The 200 of a change to a record: the record after it, with its `ETag`. */
export function changedReply<S extends z.ZodType>(description: string, schema: S) {
  return jsonReply(description, schema, { ETag: entityTagHeader });
}
