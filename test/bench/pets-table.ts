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

/**
 * One statement adding animals with ids from+1 … to, generated inside SQLite
 * by a recursive CTE: a million rows take seconds, where one INSERT per row
 * would take many minutes.
 */
export function growPetsSql(from: number, to: number, createdAt = Date.now()): string {
  const status = STATUS_BY_REMAINDER.map(
    ({ below, status }) => `WHEN i % 100 < ${below} THEN '${status}'`,
  ).join(" ");
  return [
    `WITH RECURSIVE n(i) AS (SELECT ${from + 1} UNION ALL SELECT i + 1 FROM n WHERE i < ${to})`,
    "INSERT INTO pets (id, name, category_id, status, created_at)",
    `SELECT i, 'Bench pet ' || i, i % 7 + 1, CASE ${status} END, ${createdAt} FROM n`,
  ].join(" ");
}

/** Grows the pets table of a local D1 (its state under `persistTo`) from `from` to `to` animals. */
export async function growPets(persistTo: string, from: number, to: number): Promise<void> {
  await executeSql(persistTo, growPetsSql(from, to), 300_000);
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
