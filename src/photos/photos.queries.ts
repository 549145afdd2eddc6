import { and, asc, eq, inArray, lt, type SQL, sql } from "drizzle-orm";
import {
  type Database,
  type Drizzle,
  millis,
  preparedQueries,
  runAll,
  runOne,
} from "../db/database.ts";
import { photos } from "../db/photos-table.ts";
import { instant, shape } from "../db/shape.ts";
import { guardStorage } from "../storage/storage-guard.ts";

/** A photo as the API returns it. */
export const photoShape = shape(photos, {
  id: photos.id,
  url: photos.url,
  contentType: photos.contentType,
  size: photos.size,
  createdAt: instant(photos.createdAt),
});

/** Rows whose objects are to be deleted, then the rows themselves. */
const doomed = eq(photos.state, "deleting");

const ids = sql`(SELECT value FROM json_each(${sql.placeholder("ids")}))`;

/** Each query shape built once per database, so a request only binds values. */
function prepareQueries(db: Drizzle) {
  const marked = (where: SQL | undefined) =>
    db.update(photos).set({ state: "deleting" }).where(where).prepare();
  return {
    /** An upload given up before its photo was confirmed: its object is to be deleted. */
    abandon: marked(and(eq(photos.id, sql.placeholder("id")), eq(photos.state, "pending"))),
    /** Uploads that never finished: pending since before `before`. */
    markStale: marked(and(eq(photos.state, "pending"), lt(photos.createdAt, millis("before")))),
    /** Of the rows named in `ids`, those marked for deletion. */
    doomedOf: db
      .select({ id: photos.id })
      .from(photos)
      .where(and(doomed, inArray(photos.id, ids)))
      .prepare(),
    /** Rows marked for deletion, at most `limit`, oldest first. */
    doomed: db
      .select({ id: photos.id })
      .from(photos)
      .where(doomed)
      .orderBy(asc(photos.createdAt))
      .limit(sql.placeholder("limit"))
      .prepare(),
    /** The rows named in `ids` whose objects are gone. */
    remove: db
      .delete(photos)
      .where(and(doomed, inArray(photos.id, ids)))
      .prepare(),
  };
}

const photoQueries = preparedQueries(prepareQueries);

/** Marks the upload of photo `id` given up, if it is still pending: whether its object is to be deleted. */
export async function abandonPending(db: Database, id: string): Promise<boolean> {
  const [, doomedRows] = await guardStorage("D1", () =>
    runAll(db, [photoQueries(db).abandon, photoQueries(db).doomedOf], {
      id,
      ids: JSON.stringify([id]),
    }),
  );
  return (doomedRows as unknown[]).length > 0;
}

/** Marks the uploads pending since before `before` given up; then up to `limit` rows to delete. */
export async function doomedPhotos(
  db: Database,
  { before, limit }: { before: number; limit: number },
): Promise<string[]> {
  const [, rows] = await guardStorage("D1", () =>
    runAll(db, [photoQueries(db).markStale, photoQueries(db).doomed], { before, limit }),
  );
  return (rows as { id: string }[]).map((row) => row.id);
}

/** Deletes the rows of photos marked for deletion whose objects are gone. */
export async function forgetPhotos(db: Database, photoIds: readonly string[]): Promise<void> {
  await guardStorage("D1", () =>
    runOne(db, photoQueries(db).remove, { ids: JSON.stringify(photoIds) }),
  );
}
