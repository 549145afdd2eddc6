import { env } from "cloudflare:test";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { SEARCH_WINDOW } from "../../../src/pets/pet-listing.queries.ts";
import { expectError } from "../support/assertions.ts";
import { seedUnlimitedKey } from "../support/keys.ts";
import { runs as numRuns, seed } from "../support/property.ts";
import { api, ORIGIN } from "../support/request.ts";

/*
 * The finders against a model in TypeScript: for random catalogues and
 * random combinations of every filter and both directions, walking the
 * listing to its end with a random limit gives exactly the animals the
 * model selects, in its order, short pages included. Names are drawn from
 * an alphabet whose folding the model knows exactly: letters with accents
 * that the tokenizer's remove_diacritics 2 strips, in both cases, and
 * separators that include FTS5's own syntax.
 */

type Status = "available" | "pending" | "sold";
const STATUSES: readonly Status[] = ["available", "pending", "sold"];
const CATEGORIES = [1, 2, 3, 4];
const SHELTERS = [1, 2, 3];
const AGES = ["baby", "young", "adult", "senior"] as const;
const SIZES = ["small", "medium", "large", "xlarge"] as const;
const SEXES = ["female", "male"] as const;
const YES_NO = [
  "goodWithChildren",
  "goodWithDogs",
  "goodWithCats",
  "houseTrained",
  "specialNeeds",
  "spayedNeutered",
] as const;
type YesNo = (typeof YES_NO)[number];

interface Animal {
  id: number;
  name: string;
  categoryId: number;
  status: Status;
  deleted: boolean;
  shelterId: number | null;
  breed: string | null;
  age: (typeof AGES)[number] | null;
  size: (typeof SIZES)[number] | null;
  sex: (typeof SEXES)[number] | null;
  yesNo: Record<YesNo, boolean | null>;
}

interface Finders {
  status?: Status[];
  categoryId?: number[];
  id?: number[];
  q?: string;
  shelterId?: number[];
  breed?: string[];
  age?: (typeof AGES)[number][];
  size?: (typeof SIZES)[number][];
  sex?: (typeof SEXES)[number];
  yesNo?: Partial<Record<YesNo, boolean>>;
  direction: "asc" | "desc";
  limit: number;
}

const LETTERS = [..."aeinorsl", ..."éèêáàâíóöôúüñç", ..."AEÉÖÑ"];
const SEPARATORS = [..." -'.\"*:^()", " AND ", " NEAR "];

/** Case and accents as the tokenizer folds them, for this alphabet. */
const fold = (text: string) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
/** Words as the tokenizer reads them, for this alphabet: runs of letters. */
const wordsOf = (text: string) => (text.match(/\p{L}+/gu) ?? []).map(fold);

/** Whether every word of `query` begins a word of `text`. */
const begins = (query: string, text: string) =>
  wordsOf(query).every((word) => wordsOf(text).some((candidate) => candidate.startsWith(word)));

/** Whether the animal's profile passes the profile filters given. */
function profileMatches(animal: Animal, finders: Finders): boolean {
  const { shelterId, breed, age, size, sex, yesNo = {} } = finders;
  if (shelterId && !shelterId.includes(animal.shelterId ?? 0)) return false;
  if (breed && !breed.some((value) => animal.breed !== null && begins(value, animal.breed)))
    return false;
  if (age && !age.some((value) => value === animal.age)) return false;
  if (size && !size.some((value) => value === animal.size)) return false;
  if (sex && sex !== animal.sex) return false;
  return Object.entries(yesNo).every(([field, value]) => animal.yesNo[field as YesNo] === value);
}

/** The model: live animals whose fields pass every filter given, in the direction's order. */
function expected(catalogue: readonly Animal[], finders: Finders): number[] {
  const picked = catalogue.filter((animal) => {
    if (animal.deleted) return false;
    if (finders.status && !finders.status.includes(animal.status)) return false;
    if (finders.categoryId && !finders.categoryId.includes(animal.categoryId)) return false;
    if (finders.id && !finders.id.includes(animal.id)) return false;
    if (!profileMatches(animal, finders)) return false;
    return finders.q === undefined || begins(finders.q, animal.name);
  });
  const ids = picked.map((animal) => animal.id);
  return finders.direction === "asc" ? ids : ids.reverse();
}

let key: string;

beforeAll(async () => {
  ({ key } = await seedUnlimitedKey());
});

/**
 * Replaces the catalogue with these animals, written as the changes write
 * them (a row, and the words of a live one's name), and returns it with ids.
 */
async function writeCatalogue(animals: Omit<Animal, "id">[]): Promise<Animal[]> {
  await env.DB.batch([
    env.DB.prepare("DELETE FROM pets"),
    env.DB.prepare("INSERT INTO pet_search (pet_search) VALUES ('delete-all')"),
  ]);
  if (animals.length === 0) return [];
  const bit = (value: boolean | null) => (value === null ? null : value ? 1 : 0);
  const inserted = await env.DB.batch(
    animals.map((animal) =>
      env.DB.prepare(
        `INSERT INTO pets (name, category_id, status, version, created_at, deleted_at, shelter_id, breed, age, size, sex,
           good_with_children, good_with_dogs, good_with_cats, house_trained, special_needs, spayed_neutered)
         VALUES (?, ?, ?, 1, 0, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
      ).bind(
        animal.name,
        animal.categoryId,
        animal.status,
        animal.deleted ? 1 : null,
        animal.shelterId,
        animal.breed,
        animal.age,
        animal.size,
        animal.sex,
        ...YES_NO.map((field) => bit(animal.yesNo[field])),
      ),
    ),
  );
  await env.DB.prepare(
    "INSERT INTO pet_search (rowid, name, breed) SELECT id, name, breed FROM pets WHERE deleted_at IS NULL",
  ).run();
  return animals.map((animal, i) => {
    const [row] = (inserted[i]?.results ?? []) as { id: number }[];
    if (!row) throw new Error(`animal ${i} was not inserted`);
    return { ...animal, id: row.id };
  });
}

function queryOf(finders: Finders): string {
  const query = new URLSearchParams({ limit: String(finders.limit), direction: finders.direction });
  for (const status of finders.status ?? []) query.append("status", status);
  for (const categoryId of finders.categoryId ?? []) query.append("categoryId", String(categoryId));
  for (const id of finders.id ?? []) query.append("id", String(id));
  if (finders.q !== undefined) query.set("q", finders.q);
  for (const shelterId of finders.shelterId ?? []) query.append("shelterId", String(shelterId));
  for (const breed of finders.breed ?? []) query.append("breed", breed);
  for (const age of finders.age ?? []) query.append("age", age);
  for (const size of finders.size ?? []) query.append("size", size);
  if (finders.sex !== undefined) query.set("sex", finders.sex);
  for (const [field, value] of Object.entries(finders.yesNo ?? {})) query.set(field, String(value));
  return query.toString();
}

/** Follows the listing's Link to its end: every id, in order, and the size of each page. */
async function walk(finders: Finders): Promise<{ ids: number[]; pages: number[] }> {
  const ids: number[] = [];
  const pages: number[] = [];
  let path: string | null = `/v1/pets?${queryOf(finders)}`;
  while (path !== null) {
    const res = await api(path, { key });
    const text = await res.text();
    expect(res.status, `${path}: ${text}`).toBe(200);
    const page = (JSON.parse(text) as { id: number }[]).map((animal) => animal.id);
    expect(page.length).toBeLessThanOrEqual(finders.limit);
    ids.push(...page);
    pages.push(page.length);
    const next = res.headers.get("Link")?.match(/^<([^>]+)>; rel="next"$/)?.[1];
    path = next ? next.slice(ORIGIN.length) : null;
    expect(pages.length, "runaway paging").toBeLessThan(500);
  }
  return { ids, pages };
}

const word = fc.string({ unit: fc.constantFrom(...LETTERS), minLength: 1, maxLength: 6 });
const name = fc
  .array(fc.oneof(word, fc.constantFrom(...SEPARATORS)), { minLength: 1, maxLength: 5 })
  .map((parts) => parts.join(""))
  .filter((text) => text.trim() !== "");
const unknownOr = <T>(known: fc.Arbitrary<T>) => fc.option(known, { nil: null });
const animal = fc.record({
  name,
  categoryId: fc.constantFrom(...CATEGORIES),
  status: fc.constantFrom(...STATUSES),
  // About one in seven deleted: a tombstone no finder may return.
  deleted: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
  shelterId: unknownOr(fc.constantFrom(...SHELTERS)),
  breed: unknownOr(name),
  age: unknownOr(fc.constantFrom(...AGES)),
  size: unknownOr(fc.constantFrom(...SIZES)),
  sex: unknownOr(fc.constantFrom(...SEXES)),
  yesNo: fc.record(
    Object.fromEntries(YES_NO.map((field) => [field, unknownOr(fc.boolean())])) as Record<
      YesNo,
      fc.Arbitrary<boolean | null>
    >,
  ),
});

/** Finders as drawn, before the catalogue has ids: `id` picks animals by position, or an id no animal has. */
type Drawn = Omit<Finders, "id"> & { id?: (number | "unknown")[] };

/** The start of a word of one of these texts, or any word when there are none. */
function startOf(names: readonly string[]): fc.Arbitrary<string> {
  return names.length
    ? fc
        .tuple(fc.constantFrom(...names), fc.nat(), fc.integer({ min: 1, max: 4 }))
        .map(([text, at, length]) => {
          const words = text.match(/\p{L}+/gu) ?? ["x"];
          return (words[at % words.length] ?? "x").slice(0, length);
        })
    : word;
}

/** Finders over a catalogue's names and breeds: each filter present or not, `q` and `breed` often a word's start from them. */
function findersFor(names: readonly string[], breeds: readonly string[]): fc.Arbitrary<Drawn> {
  const start = startOf(names);
  const breedStart = startOf(breeds);
  const q = fc.oneof(
    start,
    fc.tuple(start, start).map(([a, b]) => `${a} ${b}`),
    fc.tuple(start, fc.constantFrom(...SEPARATORS)).map(([a, b]) => `${b}${a.toUpperCase()}${b}`),
    name,
    fc.constantFrom('"', "AND", "*", "NEAR(", "^", ":"),
  );
  const pick = fc.oneof(fc.nat({ max: 30 }), fc.constant("unknown" as const));
  const drawn = fc.record(
    {
      status: fc.uniqueArray(fc.constantFrom(...STATUSES), { minLength: 1, maxLength: 3 }),
      categoryId: fc.uniqueArray(fc.constantFrom(...CATEGORIES), { minLength: 1, maxLength: 3 }),
      id: fc.array(pick, { minLength: 1, maxLength: 12 }),
      q,
      direction: fc.constantFrom("asc" as const, "desc" as const),
      limit: fc.integer({ min: 1, max: 7 }),
    },
    { requiredKeys: ["direction", "limit"] },
  );
  // Every profile filter drawn, then at most two of them kept: more would rarely leave an animal.
  const profile = fc.record({
    shelterId: fc.uniqueArray(fc.constantFrom(...SHELTERS, 4), { minLength: 1, maxLength: 2 }),
    breed: fc.array(
      fc.oneof(
        breedStart,
        fc.tuple(breedStart, breedStart).map(([a, b]) => `${a} ${b}`),
      ),
      { minLength: 1, maxLength: 2 },
    ),
    age: fc.uniqueArray(fc.constantFrom(...AGES), { minLength: 1, maxLength: 2 }),
    size: fc.uniqueArray(fc.constantFrom(...SIZES), { minLength: 1, maxLength: 2 }),
    sex: fc.constantFrom(...SEXES),
    yesNo: fc
      .tuple(fc.constantFrom(...YES_NO), fc.boolean())
      .map(([field, value]) => ({ [field]: value })),
  });
  const kept = fc.subarray(["shelterId", "breed", "age", "size", "sex", "yesNo"] as const, {
    maxLength: 2,
  });
  return fc.tuple(drawn, profile, kept).map(([finders, values, names]) => ({
    ...finders,
    ...Object.fromEntries(names.map((name) => [name, values[name]])),
  }));
}

/** The finders with the ids the catalogue gave its animals. */
function resolved(drawn: Drawn, catalogue: readonly Animal[]): Finders {
  const { id, ...rest } = drawn;
  if (id === undefined) return rest;
  const ids = id.map((pick) =>
    pick === "unknown" || catalogue.length === 0
      ? 9_000_000_000_000_000
      : (catalogue[pick % catalogue.length]?.id ?? 1),
  );
  return { ...rest, id: [...new Set(ids)] };
}

describe(`the finders against a model (seed ${seed}, ${numRuns} runs)`, () => {
  it("walk to exactly the model's animals, in its order, for every combination and direction", async () => {
    const property = fc.asyncProperty(
      fc.array(animal, { maxLength: 24 }).chain((animals) =>
        fc.tuple(
          fc.constant(animals),
          fc.array(
            findersFor(
              animals.map((drawn) => drawn.name),
              animals.flatMap((drawn) => (drawn.breed === null ? [] : [drawn.breed])),
            ),
            {
              minLength: 3,
              maxLength: 3,
            },
          ),
        ),
      ),
      async ([animals, walks]) => {
        const catalogue = await writeCatalogue(animals);
        for (const drawn of walks) {
          const finders = resolved(drawn, catalogue);
          if (finders.q !== undefined && wordsOf(finders.q).length === 0) {
            // A q without a word names nothing to look for.
            const res = await api(`/v1/pets?${queryOf(finders)}`, { key });
            await expectError(res, 400, "invalid_request", { paths: ["q"] });
            continue;
          }
          const { ids } = await walk(finders);
          expect(ids, queryOf(finders)).toEqual(expected(catalogue, finders));
        }
      },
    );
    await fc.assert(property, { seed, numRuns }).catch((error: unknown) => {
      throw new Error(`the finders differ from the model with seed ${seed}: ${String(error)}`);
    });
  }, 180_000);

  it("walk past windows of the search index: short pages, even empty, still the model's animals", async () => {
    // More animals share the word "crowd" than one window holds; few pass the other filters.
    const crowd = SEARCH_WINDOW + 700;
    const rare = (i: number) => i % 1499 === 0;
    await writeCatalogue([]);
    await env.DB.batch([
      env.DB.prepare(
        `WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
         INSERT INTO pets (name, category_id, status, version, created_at, shelter_id, sex)
         SELECT 'Crowd ' || char(97 + i % 3), 1 + i % 4, CASE WHEN i % 1499 = 0 THEN 'sold' ELSE 'available' END, 1, 0,
           1 + i % 3, CASE WHEN i % 1499 = 0 THEN 'female' ELSE 'male' END FROM n`,
      ).bind(crowd),
      env.DB.prepare(
        "INSERT INTO pet_search (rowid, name, breed) SELECT id, name, breed FROM pets",
      ),
    ]);
    const { results } = await env.DB.prepare("SELECT id FROM pets ORDER BY id").all<{
      id: number;
    }>();
    const catalogue: Animal[] = results.map(({ id }, i) => ({
      id,
      name: `Crowd ${String.fromCharCode(97 + ((i + 1) % 3))}`,
      categoryId: 1 + ((i + 1) % 4),
      status: rare(i + 1) ? "sold" : "available",
      deleted: false,
      shelterId: 1 + ((i + 1) % 3),
      breed: null,
      age: null,
      size: null,
      sex: rare(i + 1) ? "female" : "male",
      yesNo: {
        goodWithChildren: null,
        goodWithDogs: null,
        goodWithCats: null,
        houseTrained: null,
        specialNeeds: null,
        spayedNeutered: null,
      },
    }));
    const finders = fc.record({
      status: fc.constant<Status[]>(["sold"]),
      categoryId: fc.uniqueArray(fc.constantFrom(...CATEGORIES), { minLength: 1, maxLength: 2 }),
      q: fc.constantFrom("crowd", "cro", "crowd b", "c a"),
      direction: fc.constantFrom("asc" as const, "desc" as const),
      limit: fc.integer({ min: 1, max: 9 }),
    });
    const shortPages: number[] = [];
    await fc.assert(
      fc.asyncProperty(finders, async (chosen) => {
        const { ids, pages } = await walk(chosen);
        expect(ids, queryOf(chosen)).toEqual(expected(catalogue, chosen));
        shortPages.push(...pages.slice(0, -1).filter((size) => size < chosen.limit));
      }),
      { seed, numRuns: Math.min(numRuns, 12) },
    );
    // Without words, a shelter with a yes/no or sex filter walks windows of the live animals' index.
    const unsearched = fc.record({
      shelterId: fc.uniqueArray(fc.constantFrom(...SHELTERS), { minLength: 1, maxLength: 2 }),
      sex: fc.constant("female" as const),
      direction: fc.constantFrom("asc" as const, "desc" as const),
      limit: fc.integer({ min: 1, max: 9 }),
    });
    await fc.assert(
      fc.asyncProperty(unsearched, async (chosen) => {
        const { ids, pages } = await walk(chosen);
        expect(ids, queryOf(chosen)).toEqual(expected(catalogue, chosen));
        shortPages.push(...pages.slice(0, -1).filter((size) => size < chosen.limit));
      }),
      { seed, numRuns: Math.min(numRuns, 6) },
    );
    // The window did cut pages short, and the walk went on past them.
    expect(shortPages.length).toBeGreaterThan(0);
  }, 180_000);
});
