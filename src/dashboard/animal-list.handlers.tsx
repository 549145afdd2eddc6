import { type Direction, encodeCursor, positionIn } from "../api/cursor.ts";
import { listCategories } from "../categories/categories.queries.ts";
import { findersOf } from "../pets/pet-finders.ts";
import { listPets } from "../pets/pet-listing.queries.ts";
import { YES_NO_FIELDS } from "../pets/pet-profile.schemas.ts";
import { ListPetsQuerySchema } from "../pets/pets.schemas.ts";
import { listAccountShelters } from "../shelters/account-shelters.queries.ts";
import { signedInAs } from "./csrf.ts";
import { takeNotices } from "./notices.ts";
import { FINDER_FIELDS } from "./pages/animal-finders.tsx";
import { AnimalListPage } from "./pages/animal-list-page.tsx";
import type { DashboardContext } from "./session.ts";

/** The finders the API takes once; the others may repeat. */
const SINGLE_VALUED = new Set<string>(["q", "sex", ...YES_NO_FIELDS]);

/** Animals on one page of the list. */
const ANIMALS_PER_PAGE = 20;

/**
 * The finders as the address gives them, every value that is not empty (an
 * empty field of the form means any), for the API's own query rules.
 */
function findersIn(c: DashboardContext): Record<string, string[]> {
  const finders: Record<string, string[]> = {};
  for (const name of FINDER_FIELDS) {
    const values = (c.req.queries(name) ?? []).map((value) => value.trim()).filter(Boolean);
    if (values.length > 0) finders[name] = values;
  }
  return finders;
}

/** Where the cursor continues the list; null when it is not one the list gave. */
function afterCursor(cursor: string | undefined, direction: Direction): number | undefined | null {
  if (cursor === undefined) return undefined;
  try {
    return positionIn(cursor, direction);
  } catch {
    return null;
  }
}

/**
 * The account's animals, found as the API finds them (the same parameters,
 * read by the same rules) and paged by the API's cursor, newest first.
 * Finders the API would refuse give the page again with a 400 and the
 * reason, and no animals.
 */
export async function listAnimals(c: DashboardContext) {
  const services = c.get("services");
  const finders = findersIn(c);
  const cursor = c.req.query("cursor");
  const query = ListPetsQuerySchema.safeParse({
    ...Object.fromEntries(
      Object.entries(finders).map(([name, values]) => [
        name,
        SINGLE_VALUED.has(name) ? values[0] : values,
      ]),
    ),
    limit: String(ANIMALS_PER_PAGE),
    direction: "desc",
    ...(cursor ? { cursor } : {}),
  });
  const [signedIn, categories, shelters] = await Promise.all([
    signedInAs(c),
    listCategories(services.db, { limit: 100, afterId: 0 }),
    listAccountShelters(services.db, c.get("account").id),
  ]);
  const shown = { ...signedIn, finders, categories: categories.categories, shelters };
  const after = query.success ? afterCursor(query.data.cursor, query.data.direction) : undefined;
  if (!query.success || after === null) {
    const error = "These filters cannot be used: change them and search again.";
    return c.html(<AnimalListPage {...shown} page={undefined} error={error} notices={[]} />, 400);
  }
  const { direction } = query.data;
  const page = await listPets(services.db, {
    ...findersOf(query.data),
    accountId: c.get("account").id,
    limit: ANIMALS_PER_PAGE,
    direction,
    after,
  });
  const next = page.next === undefined ? undefined : encodeCursor(page.next, direction);
  const notices = await takeNotices(services.db, c.get("session"));
  const listed = { animals: page.pets, next, first: cursor === undefined };
  return c.html(<AnimalListPage {...shown} page={listed} notices={notices} />);
}
