import { profileSql } from "./animal-profiles.ts";
import { scaleSheltersSql } from "./bench-shelters.ts";
import { GIVEN_NAMES } from "./pet-names.ts";
import { executeSql } from "./seed.ts";

export type PetStatus = "available" | "pending" | "sold";

/**
 * The skew of a grown table, by id modulo 100: 1% pending, 9% available,
 * 90% sold, so a `status=pending` listing that scanned instead of using the
 * (status, id) index would show it. First match wins.
 */
const STATUS_BY_REMAINDER: readonly { below: number; status: PetStatus }[] = [
  { below: 1, status: "pending" },
  { below: 10, status: "available" },
  { below: 100, status: "sold" },
];

/** The status the grown table gives the animal with this id. */
export function statusOf(id: number): PetStatus {
  const remainder = id % 100;
  const match = STATUS_BY_REMAINDER.find(({ below }) => remainder < below);
  if (!match) throw new Error(`no status for remainder ${remainder}`);
  return match.status;
}

/** Animals a shelter holds in a grown table: 10⁶ animals live in 10⁴ shelters, 10³ in 10. */
export const ANIMALS_PER_SHELTER = 100;

/** The shelters a table grown to `size` animals has. */
export const sheltersFor = (size: number) => Math.max(1, Math.round(size / ANIMALS_PER_SHELTER));

/**
 * SQL adding animals with ids from+1 … to, generated inside SQLite by a
 * recursive CTE (a million rows take seconds, where one INSERT per row would
 * take many minutes), and their names' and breeds' words to the search
 * index, as each create writes them: named as `petName` names them, in the
 * categories the catalogue starts with (1–7), their statuses skewed as
 * above, their profiles drawn from their ids (animal-profiles.ts), living
 * in `shelters` shelters (ids 1 on) in turn.
 */
export function growPetsSql(
  from: number,
  to: number,
  shelters: number,
  createdAt = Date.now(),
): string {
  const status = STATUS_BY_REMAINDER.map(
    ({ below, status }) => `WHEN i % 100 < ${below} THEN '${status}'`,
  ).join(" ");
  const given = `json_extract('${JSON.stringify(GIVEN_NAMES)}', '$[' || (i % ${GIVEN_NAMES.length}) || ']')`;
  const profile = profileSql("i", shelters);
  return [
    `WITH RECURSIVE n(i) AS (SELECT ${from + 1} UNION ALL SELECT i + 1 FROM n WHERE i < ${to})`,
    `INSERT INTO pets (id, name, category_id, status, created_at, ${profile.columns})`,
    `SELECT i, ${given} || ' ' || i, i % 7 + 1, CASE ${status} END, ${createdAt}, ${profile.values} FROM n;`,
    `INSERT INTO pet_search (rowid, name, breed) SELECT id, name, breed FROM pets WHERE id > ${from} AND id <= ${to}`,
  ].join("\n");
}

/**
 * Grows the catalogue of a local D1 (its state under `persistTo`) from
 * `from` to `to` animals, living in `shelters` shelters: made with the
 * first animals (bench-shelters.ts), as a real catalogue's shelters come
 * before their animals.
 */
export async function growPets(
  persistTo: string,
  from: number,
  to: number,
  shelters: number,
): Promise<void> {
  const made = from === 0 ? [scaleSheltersSql(shelters)] : [];
  await executeSql(persistTo, [...made, growPetsSql(from, to, shelters)].join("\n"), 300_000);
}

/**
 * The id after which the last full page of a grown table of `size` animals
 * starts: the cursor position whose page of `limit` is the table's (or the
 * status's) last, so it walks the deepest part of the index.
 */
export function lastPageAfterId(size: number, limit: number, status?: PetStatus): number {
  let found = 0;
  for (let id = size; id > 0; id--) {
    if (status !== undefined && statusOf(id) !== status) continue;
    found += 1;
    if (found === limit + 1) return id;
  }
  return 0;
}
