import { and, asc, eq, sql } from "drizzle-orm";
import { type Database, type Drizzle, preparedQueries, runOne } from "../db/database.ts";
import { shelters } from "../db/shelters-table.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import { liveShelter, shelterShape } from "./shelters.queries.ts";
import type { Shelter } from "./shelters.schemas.ts";

const accountQueries = preparedQueries((db: Drizzle) => ({
  // Served by the index of live shelters by account; a plan caps how many an account holds.
  ofAccount: db
    .select(shelterShape.columns)
    .from(shelters)
    .where(and(eq(shelters.accountId, sql.placeholder("accountId")), liveShelter))
    .orderBy(asc(shelters.id))
    .prepare(),
}));

/** Every live shelter of the account, oldest first: at most its plan's cap (500 on Enterprise). */
export async function listAccountShelters(db: Database, accountId: number): Promise<Shelter[]> {
  const rows = await guardStorage("D1", () =>
    runOne(db, accountQueries(db).ofAccount, { accountId }),
  );
  return rows.map(shelterShape.render);
}
