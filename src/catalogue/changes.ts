import type { Context } from "hono";
import { acceptedVersions, meetsIfMatch } from "../api/entity-tags.ts";
import type { AppEnv } from "../context.ts";
import { type Changer, changerOf } from "./ownership.ts";

/**
 * What every change of a record of the catalogue (an animal, a category, a shelter)
 * shares: it is decided from the record as read where changes are made,
 * then written in one batch that holds only while the record is still at
 * the version read; when another change came between (the batch changed
 * nothing), the record is read again and the decision made afresh, so an
 * `If-Match` that named the old version then gives 412.
 */

/** A change asked for: which record, by whom, and the versions `If-Match` accepts (undefined for any). */
export interface ChangeRequest {
  id: number;
  changer: Changer;
  accepted: readonly number[] | undefined;
}

/** The change a request asks for on the record with this id (a malformed If-Match is a 400). */
export function changeRequestOf(c: Context<AppEnv>, id: number): ChangeRequest {
  return {
    id,
    changer: changerOf(c.get("apiKey"), c.get("services").config),
    accepted: acceptedVersions(c.req.header("If-Match")),
  };
}

/** Why a change refused, first: no such record, another account's, or a stale `If-Match` (RFC 9110 puts 404 and 403 before 412). */
export type CommonRefusal =
  | { kind: "notFound" }
  | { kind: "notOwner" }
  | { kind: "preconditionFailed" };

/**
 * How many times a change is decided afresh after another change of the
 * same record won the race: each loss means another change committed, so
 * this is reached only under a flood of changes to one record.
 */
const MAX_ATTEMPTS = 20;

/**
 * Reads, decides and writes until the write holds: `attempt` answers the
 * outcome, or undefined when another change of the record came between its
 * read and its write, and is then run afresh. `what` names the change and
 * its record in the error of a record that never stays still.
 */
async function retryOnRace<T>(what: string, attempt: () => Promise<T | undefined>): Promise<T> {
  for (let round = 1; round <= MAX_ATTEMPTS; round++) {
    const outcome = await attempt();
    if (outcome !== undefined) return outcome;
  }
  throw new Error(`${what} lost to another change ${MAX_ATTEMPTS} times in a row`);
}

/**
 * One change of the record `request` names, made as every change of the
 * catalogue is: `read` takes the record where changes are made, the refusals
 * every change shares come first, then `decide` answers the outcome, or
 * undefined when its write found the record moved on, and all is run afresh.
 * `what` names the change (`edit of shelter`), the record's id following.
 */
export function changeRecord<R extends { owned: boolean; version: number }, T>(
  what: string,
  request: ChangeRequest,
  read: () => Promise<R | undefined>,
  decide: (current: R) => Promise<T | undefined> | T | undefined,
): Promise<T | CommonRefusal> {
  return retryOnRace(`${what} ${request.id}`, async (): Promise<T | CommonRefusal | undefined> => {
    const current = await read();
    if (!current) return { kind: "notFound" };
    if (!current.owned) return { kind: "notOwner" };
    if (!meetsIfMatch(request.accepted, current.version)) return { kind: "preconditionFailed" };
    return decide(current);
  });
}
