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

interface Animal {
  id: number;
  name: string;
  categoryId: number;
  status: Status;
  deleted: boolean;
}

interface Finders {
  status?: Status[];
  categoryId?: number[];
  id?: number[];
  q?: string;
  direction: "asc" | "desc";
  limit: number;
}

const LETTERS = [..."aeinorsl", ..."éèêáàâíóöôúüñç", ..."AEÉÖÑ"];
const SEPARATORS = [..." -'.\"*:^()", " AND ", " NEAR "];

/** Case and accents as the tokenizer folds them, for this alphabet. */
const fold = (text: string) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
/** Words as the tokenizer reads them, for this alphabet: runs of letters. */
const wordsOf = (text: string) => (text.match(/\p{L}+/gu) ?? []).map(fold);

/** The model: live animals whose fields pass every filter given, in the direction's order. */
function expected(catalogue: readonly Animal[], finders: Finders): number[] {
  const queryWords = finders.q === undefined ? [] : wordsOf(finders.q);
  const picked = catalogue.filter((animal) => {
    if (animal.deleted) return false;
    if (finders.status && !finders.status.includes(animal.status)) return false;
    if (finders.categoryId && !finders.categoryId.includes(animal.categoryId)) return false;
    if (finders.id && !finders.id.includes(animal.id)) return false;
    const words = wordsOf(animal.name);
    return queryWords.every((word) => words.some((candidate) => candidate.startsWith(word)));
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
  const inserted = await env.DB.batch(
    animals.map((animal) =>
      env.DB.prepare(
        "INSERT INTO pets (name, category_id, status, version, created_at, deleted_at) VALUES (?, ?, ?, 1, 0, ?) RETURNING id",
      ).bind(animal.name, animal.categoryId, animal.status, animal.deleted ? 1 : null),
    ),
  );
  await env.DB.prepare(
    "INSERT INTO pet_search (rowid, name) SELECT id, name FROM pets WHERE deleted_at IS NULL",
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
const animal = fc.record({
  name,
  categoryId: fc.constantFrom(...CATEGORIES),
  status: fc.constantFrom(...STATUSES),
  // About one in seven deleted: a tombstone no finder may return.
  deleted: fc.integer({ min: 0, max: 6 }).map((n) => n === 0),
});

/** Finders as drawn, before the catalogue has ids: `id` picks animals by position, or an id no animal has. */
type Drawn = Omit<Finders, "id"> & { id?: (number | "unknown")[] };

/** Finders over a catalogue's names: each filter present or not, `q` often a word's start from them. */
function findersFor(names: readonly string[]): fc.Arbitrary<Drawn> {
  const start = names.length
    ? fc
        .tuple(fc.constantFrom(...names), fc.nat(), fc.integer({ min: 1, max: 4 }))
        .map(([text, at, length]) => {
          const words = text.match(/\p{L}+/gu) ?? ["x"];
          return (words[at % words.length] ?? "x").slice(0, length);
        })
    : word;
  const q = fc.oneof(
    start,
    fc.tuple(start, start).map(([a, b]) => `${a} ${b}`),
    fc.tuple(start, fc.constantFrom(...SEPARATORS)).map(([a, b]) => `${b}${a.toUpperCase()}${b}`),
    name,
    fc.constantFrom('"', "AND", "*", "NEAR(", "^", ":"),
  );
  const pick = fc.oneof(fc.nat({ max: 30 }), fc.constant("unknown" as const));
  return fc.record(
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
          fc.array(findersFor(animals.map((drawn) => drawn.name)), {
            minLength: 3,
            maxLength: 3,
          }),
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
         INSERT INTO pets (name, category_id, status, version, created_at)
         SELECT 'Crowd ' || char(97 + i % 3), 1 + i % 4, CASE WHEN i % 1499 = 0 THEN 'sold' ELSE 'available' END, 1, 0 FROM n`,
      ).bind(crowd),
      env.DB.prepare("INSERT INTO pet_search (rowid, name) SELECT id, name FROM pets"),
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
    // The window did cut pages short, and the walk went on past them.
    expect(shortPages.length).toBeGreaterThan(0);
  }, 180_000);
});
