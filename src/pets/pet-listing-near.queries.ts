import { and, asc, desc, eq, type Placeholder, sql } from "drizzle-orm";
import { type Database, type Drizzle, preparedQueries, runAll, runOne } from "../db/database.ts";
import { pets } from "../db/schema.ts";
import { petSearch } from "../db/search-tables.ts";
import { distanceKmOf, nearShelters, placeValues } from "../shelters/near.queries.ts";
import type { Nearby } from "../shelters/near.schemas.ts";
import type { NearPosition } from "../shelters/near-cursor.ts";
import { cutPage, guardStorage } from "../storage/storage-guard.ts";
import { type PetFinders, SEARCH_WINDOW, valuesOf } from "./pet-finders.ts";
import { checked, searchMatches } from "./pet-listing.queries.ts";
import {
  after,
  circleCount,
  type IdOrder,
  inIdOrder,
  scannedAnimals,
  scanRoom,
} from "./pet-near-ids.queries.ts";
import {
  MERGE_EXAMINED,
  nearestUnitFilteredPage,
  nearestUnitPage,
  nearestValues,
} from "./pet-near-nearest.queries.ts";
import {
  coveredAnimals,
  inRingOrder,
  PAST_UNIT,
  type RingShelter,
  ringOf,
  ringValue,
} from "./pet-near-window.queries.ts";
import { live, petShape } from "./pets.queries.ts";
import type { Pet } from "./pets.schemas.ts";

/**
 * The listing of animals near a place. The shelters near it come from the
 * R*Tree (see `near.queries.ts`), their animals from the index of each
 * shelter's animals. By distance, the order is the distance in 100 m units
 * then the id, and the cursor holds both. When the nearest unit's animals
 * after the cursor that every filter keeps fill the page, they are the
 * page, merged by id (see `pet-near-nearest.queries.ts`). Otherwise a page lists
 * the animals of the units its window covers (see
 * `pet-near-window.queries.ts`), every filter checked on each, so it may
 * hold fewer than asked (even none), and the next page starts after the
 * last unit covered. By id, in either
 * direction, a page first counts the circle (see `pet-near-ids.queries.ts`);
 * when it is crowded, the page reads the animals by id whatever their
 * shelter. Otherwise, with `near` alone a page is read straight away; with
 * any other filter too, a page examines a window of at most 10,000 of the
 * circle's animals from the cursor, and the next page starts after the
 * window.
 */

type Order = "distance" | "idAsc" | "idDesc";

const limit = sql.placeholder("limit");

/** Every filter but the place's, when its value is bound: the listing's own finders, `q`, `breed` and `id` too. */
const everyFilter = and(
  checked,
  sql`(${sql.placeholder("ids")} IS NULL OR ${pets.id} IN (SELECT value FROM json_each(${sql.placeholder("ids")})))`,
  sql`(${sql.placeholder("search")} IS NULL OR EXISTS (SELECT 1 FROM ${petSearch} WHERE ${searchMatches} AND ${petSearch.rowid} = ${pets.id}))`,
);

/**
 * The live animals of the shelters near the place, from the cursor, in id
 * order: as the API shows them, or (for a window) only their ids and
 * distances.
 */
function nearAnimals(
  db: Drizzle,
  { order, shown }: { order: IdOrder; shown: boolean },
  entries: Placeholder | number,
) {
  const near = nearShelters(db);
  const columns = shown
    ? { ...petShape.columns, distanceKm: distanceKmOf(near.unit), unit: near.unit }
    : { id: pets.id, unit: near.unit };
  return (
    db
      .select(columns as typeof petShape.columns & { unit: typeof near.unit })
      // The shelters first, then each one's animals by index: never the animals first.
      .from(near)
      .crossJoin(pets)
      .where(and(eq(pets.shelterId, near.shelterId), live, after(order)))
      .orderBy(inIdOrder(order))
      .limit(entries)
  );
}

/**
 * The statements by distance: the shelters near the place from the cursor's
 * unit (the walk's ring), the nearest unit's animals merged by id, and a
 * page of the units the window covers, each row with the last unit covered
 * (a row with no animal carries it when fewer than the page's size follow).
 */
function byDistance(db: Drizzle) {
  const covered = coveredAnimals(db, everyFilter);
  return {
    ring: ringOf(db).prepare(),
    nearest: nearestUnitPage(db).prepare(),
    nearestFiltered: nearestUnitFilteredPage(db, everyFilter).prepare(),
    page: db
      .select({
        ...petShape.columns,
        distanceKm: distanceKmOf(covered.unit),
        unit: covered.unit,
        through: covered.through,
      })
      // The animals the walk kept first, then each one by key: never the animals first.
      .from(covered)
      .leftJoin(pets, eq(pets.id, covered.id))
      .orderBy(asc(covered.unit), asc(covered.id))
      .limit(limit)
      .prepare(),
  };
}

/**
 * The statements of one order by id: the circle's count, then straight
 * away or through a window, or by id alone in a crowded circle.
 */
function byId(db: Drizzle, order: IdOrder) {
  const window = nearAnimals(db, { order, shown: false }, SEARCH_WINDOW).as("windowed");
  const scanned = scannedAnimals(db, order, everyFilter);
  return {
    count: circleCount(db, order).prepare(),
    scanned: scanned.page.prepare(),
    scannedEdge: scanned.edge.prepare(),
    straight: nearAnimals(db, { order, shown: true }, limit).prepare(),
    // The window's animals by key, each with the unit the window found it at.
    page: db
      .select({ ...petShape.columns, distanceKm: distanceKmOf(window.unit), unit: window.unit })
      .from(window)
      .crossJoin(pets)
      .where(and(eq(pets.id, window.id), everyFilter))
      .orderBy(inIdOrder(order))
      .limit(limit)
      .prepare(),
    window: db
      .select({ entries: sql<number>`count(*) OVER ()`, unit: window.unit, id: window.id })
      .from(window)
      // The window's last animal in the listing's order: its highest id ascending, its lowest descending.
      .orderBy(order === "idAsc" ? desc(window.id) : asc(window.id))
      .limit(1)
      .prepare(),
  };
}

/** The statements of each order, prepared once per database (exported so a test can read their plans). */
export const nearPetFinders = preparedQueries((db: Drizzle) => ({
  distance: byDistance(db),
  idAsc: byId(db, "idAsc"),
  idDesc: byId(db, "idDesc"),
}));

interface NearPageQuery extends PetFinders {
  nearby: Nearby;
  direction: "asc" | "desc";
  after: NearPosition | undefined;
  limit: number;
}

/** One page of the animals near the place, and where the next starts when another may follow. */
export async function listPetsNear(
  db: Database,
  query: NearPageQuery,
): Promise<{ pets: Pet[]; next: NearPosition | undefined }> {
  const order: Order =
    query.nearby.sort === "distance" ? "distance" : query.direction === "asc" ? "idAsc" : "idDesc";
  const finders = valuesOf(query);
  const values = {
    ...finders,
    ...placeValues(query.nearby),
    unit: query.after?.unit ?? -1,
    position: query.after?.id ?? (order === "idDesc" ? Number.MAX_SAFE_INTEGER + 1 : 0),
    limit: query.limit + 1,
  };
  const narrowed = Object.values(finders).some((value) => value !== null);
  if (order === "distance") {
    return pageByDistance(db, { ...values, narrowed: narrowed ? 1 : 0 }, query.limit);
  }
  const statements = nearPetFinders(db)[order];
  const [circle] = await guardStorage("D1", () => runOne(db, statements.count, values));
  if (circle && circle.animals > circle.room) {
    return pageOfCrowded(db, order, { ...values, scan: scanRoom(circle) }, query.limit);
  }
  if (!narrowed) {
    const rows = await guardStorage("D1", () => runOne(db, statements.straight, values));
    return pageFrom(rows, query.limit);
  }
  const [rows, edges] = await guardStorage("D1", () =>
    runAll(db, [statements.page, statements.window], values),
  );
  const page = pageFrom(rows as NearRow[], query.limit);
  const [edge] = edges as { entries: number; unit: number; id: number }[];
  const full = edge !== undefined && edge.entries === SEARCH_WINDOW;
  return page.next === undefined && full && edge
    ? { ...page, next: { unit: edge.unit, id: edge.id } }
    : page;
}

type NearRow = Parameters<typeof petShape.render>[0] & { unit: number };

/** A row of a page by distance that lists an animal, not the entry that carries the page's end. */
const isAnimal = <R extends { id: number | null }>(row: R): row is R & NearRow => row.id !== null;

function pageFrom(rows: NearRow[], size: number) {
  const { listed, hasMore } = cutPage(rows, size);
  const last = listed.at(-1);
  return {
    pets: listed.map(({ unit: _unit, ...row }) => petShape.render(row)),
    next: hasMore && last ? { unit: last.unit, id: last.id } : undefined,
  };
}

/**
 * A page by distance, and where the next starts: after its last animal when
 * more follow in the units it covers, else after the last unit it covers.
 * The nearest unit's animals that every filter keeps, merged by id, make
 * the page when they fill it; otherwise (or when that unit holds too many
 * shelters to merge) the window's walk makes it, in the room the merge left.
 */
async function pageByDistance(
  db: Database,
  placed: Record<string, unknown> & { unit: number; position: number; narrowed: number },
  size: number,
) {
  const { ring, nearest, nearestFiltered, page } = nearPetFinders(db).distance;
  const found: RingShelter[] = await guardStorage("D1", () => runOne(db, ring, placed));
  if (found.length === 0) return { pets: [], next: undefined };
  const shelters = inRingOrder(found);
  const merged = nearestValues(shelters, { unit: placed.unit, id: placed.position });
  if (merged) {
    const statement = placed.narrowed ? nearestFiltered : nearest;
    const rows = await guardStorage("D1", () => runOne(db, statement, { ...placed, ...merged }));
    if (rows.length > size) return pageFrom(rows, size);
  }
  const examinedBefore = merged ? MERGE_EXAMINED : 0;
  const values = { ...placed, ring: ringValue(shelters), examinedBefore };
  const rows = await guardStorage("D1", () => runOne(db, page, values));
  const listed = pageFrom(
    rows.filter(isAnimal).map(({ through: _through, ...row }) => row),
    size,
  );
  // Each row carries the last unit the page covers; the entry past the animals, when no animal does.
  const through = rows[0]?.through ?? null;
  return listed.next === undefined && through !== null
    ? { ...listed, next: { unit: through, id: PAST_UNIT } }
    : listed;
}

/**
 * A page of a crowded circle by id, and where the next starts: after its
 * last animal when more follow among those read, else after the last one
 * read when it read all it had room for.
 */
async function pageOfCrowded(
  db: Database,
  order: IdOrder,
  values: Record<string, unknown> & { scan: number },
  size: number,
) {
  const { scanned, scannedEdge } = nearPetFinders(db)[order];
  const [rows, edges] = await guardStorage("D1", () => runAll(db, [scanned, scannedEdge], values));
  const page = pageFrom(rows as NearRow[], size);
  const [edge] = edges as { entries: number; id: number }[];
  return page.next === undefined && edge !== undefined && edge.entries === values.scan
    ? { ...page, next: { unit: 0, id: edge.id } }
    : page;
}
