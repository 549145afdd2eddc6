import type { Context } from "hono";
import type { AppEnv } from "../context.ts";
import type { Database } from "../db/database.ts";
import { type ChangeRequest, changeRequestOf } from "./changes.ts";
import { type Refusal, type RefusedRecord, refusalError } from "./refusals.ts";

/** A deletion of a record of the catalogue, as its edits module makes it. */
type Removal = (
  db: Database,
  request: ChangeRequest,
  now: number,
) => Promise<Refusal | { kind: "deleted" }>;

/** The reply to a DELETE of the record with this id: 204, or the error of the refusal. */
export async function deletionReply(
  c: Context<AppEnv>,
  id: number,
  remove: Removal,
  record: RefusedRecord,
) {
  const outcome = await remove(c.get("services").db, changeRequestOf(c, id), Date.now());
  if (outcome.kind !== "deleted") throw refusalError(outcome, record);
  return c.body(null, 204);
}
