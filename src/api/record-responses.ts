import type { RouteConfig, z } from "@hono/zod-openapi";
import { messages } from "../errors.ts";
import { ANY_OPERATION, type DocumentedError, errorResponses, jsonReply } from "./responses.ts";

/**
 * What the document says of an operation on one record: its refusals in the
 * words of the record's noun, and the replies of a read of it.
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
