import { and, asc, eq, gt, isNull, notExists, sql } from "drizzle-orm";
import { alias } from "drizzle-orm/sqlite-core";
import { ownerValues } from "../accounts/owner.ts";
import {
  type Changer,
  callersAccount,
  changerValues,
  ownedByCaller,
} from "../catalogue/ownership.ts";
import { change, deletionBy } from "../changes/change.ts";
import { type Database, type Drizzle, millis, preparedQueries } from "../db/database.ts";
import { insertWhere } from "../db/insert-where.ts";
import { categories, pets } from "../db/schema.ts";
import { categoryNames, indexName, unindexName } from "../db/search-tables.ts";
import { entityTag, shape } from "../db/shape.ts";
import { firstRow, readPage } from "../storage/storage-guard.ts";
import type { Category } from "./categories.schemas.ts";
import { proposal, sameNameAsProposed, takenBy } from "./category-names.ts";

/** A category as the API returns it. */
export const categoryShape = shape(categories, {
  id: categories.id,
  name: categories.name,
  etag: entityTag(categories.version),
});

const live = isNull(categories.deletedAt);
const categoryId = sql.placeholder("id");
const thisCategory = eq(categories.id, categoryId);
const atVersion = eq(categories.version, sql.placeholder("version"));
const nextVersion = sql`${categories.version} + 1`;
/** The category the batch just inserted (the names index's insert leaves its rowid, the same id). */
const inserted = eq(categories.id, sql`last_insert_rowid()`);
const livePetIn = (db: Drizzle) =>
  db
    .select({ id: pets.id })
    .from(pets)
    .where(and(eq(pets.categoryId, categories.id), isNull(pets.deletedAt)));

/** Each query shape built once per database, so a request only binds values. */
export const categoryQueries = preparedQueries((db: Drizzle) => ({
  page: db
    .select(categoryShape.columns)
    .from(categories)
    .where(and(live, gt(categories.id, sql.placeholder("afterId"))))
    .orderBy(asc(categories.id))
    .limit(sql.placeholder("limit"))
    .prepare(),
  find: db.select(categoryShape.columns).from(categories).where(and(thisCategory, live)).prepare(),
  forChange: db
    .select({
      ...categoryShape.columns,
      owned: ownedByCaller(categories.accountId).mapWith(Boolean).as("owned"),
      inUse: sql<boolean>`EXISTS ${livePetIn(db)}`.mapWith(Boolean).as("in_use"),
    })
    .from(categories)
    .where(and(thisCategory, live))
    .prepare(),
}));

/** One page of live categories in ascending id order; one extra row tells whether another follows. */
export async function listCategories(
  db: Database,
  query: { limit: number; afterId: number },
): Promise<{ categories: Category[]; hasMore: boolean }> {
  const { listed, hasMore } = await readPage(db, categoryQueries(db).page, query);
  return { categories: listed.map(categoryShape.render), hasMore };
}

export async function findCategory(db: Database, id: number): Promise<Category | undefined> {
  const row = await firstRow(db, categoryQueries(db).find, { id });
  return row && categoryShape.render(row);
}

/** A category as a change finds it, with what decides whether the change may happen. */
interface CategoryForChange {
  category: Category;
  version: number;
  owned: boolean;
  /** Whether an animal that is not deleted names it. */
  inUse: boolean;
}

/** The live category a change is about, read where changes are made; undefined when there is none. */
export async function readForChange(
  db: Database,
  id: number,
  changer: Changer,
): Promise<CategoryForChange | undefined> {
  const values = { id, ...changerValues(changer) };
  const row = await firstRow(db, categoryQueries(db).forChange, values);
  if (!row) return undefined;
  const { owned, inUse, ...columns } = row;
  // Read, the etag field is the version number it renders.
  return { category: categoryShape.render(columns), version: columns.etag, owned, inUse };
}

/** The categories' index of names. */
const names = { index: categoryNames, of: categories };

/** The other live categories, seen from a statement about the categories table itself. */
const other = alias(categories, "other");

/**
 * Adding a category: its name proposed in the names index; the insert, only
 * when no live category has the same name and for a key whose account D1
 * holds; its words; its event; then the category that has the name, to say
 * why nothing was added.
 */
const creation = change()
  .step("cleared", proposal.cleared)
  .step("proposed", proposal.proposed)
  .step("category", (db) =>
    insertWhere(db, categories, {
      row: {
        id: sql<null>`NULL`.as("id"),
        name: sql<string>`${sql.placeholder("name")}`.as("name"),
        accountId: sql<number | null>`${callersAccount}`.as("account_id"),
        version: sql<number>`1`.as("version"),
        createdAt: millis("now").as("created_at"),
        deletedAt: sql<null>`NULL`.as("deleted_at"),
      },
      from: sql`(SELECT 1)`,
      where: and(
        sql`${callersAccount} IS NOT NULL`,
        notExists(db.select({ id: other.id }).from(other).where(sameNameAsProposed(other, sql`0`))),
      ),
    })
      .returning(categoryShape.columns)
      .prepare(),
  )
  .step("indexed", (db) => indexName(db, names, inserted))
  .event({ type: "category.created", data: categoryShape, where: inserted })
  .read("taken", (db) => takenBy(db, sql`0`));

/** Nothing was made or changed: a live category (this one) has the name. */
interface NameTaken {
  kind: "nameTaken";
  takenBy: number;
}

/** Adds the category, owned by the caller's account, and its event; or nothing, when the name is taken. */
export async function createCategory(
  db: Database,
  { name, apiKeyHash, now }: { name: string; apiKeyHash: string; now: number },
): Promise<{ kind: "made"; category: Category } | NameTaken> {
  const { results } = await creation.run(db, {
    name,
    ...ownerValues({ kind: "key", apiKeyHash }),
    now,
  });
  const [row] = results.category;
  if (row) return { kind: "made", category: categoryShape.render(row) };
  const [taken] = results.taken;
  // Every authenticated key has an account row; reaching this means the data is broken.
  if (!taken) throw new Error("no account owns the API key, so the category was not added");
  return { kind: "nameTaken", takenBy: taken.id };
}

/**
 * Renaming a category: the name proposed; the update, only at the version
 * the rename was decided on and while no other live category has the name;
 * its words replaced in the index; its event; then who has the name.
 */
const renaming = change()
  .step("cleared", proposal.cleared)
  .step("proposed", proposal.proposed)
  .step("renamed", (db) =>
    db
      .update(categories)
      .set({ name: sql`${sql.placeholder("name")}`, version: nextVersion })
      .where(
        and(
          thisCategory,
          atVersion,
          live,
          notExists(
            db.select({ id: other.id }).from(other).where(sameNameAsProposed(other, categoryId)),
          ),
        ),
      )
      .returning(categoryShape.columns)
      .prepare(),
  )
  .step("unindexed", (db) => unindexName(db, names, categoryId))
  .step("indexed", (db) => indexName(db, names, thisCategory))
  .event({ type: "category.updated", data: categoryShape, where: thisCategory })
  .read("taken", (db) => takenBy(db, categoryId));

/** Renames the category if it is still at `version`: it after, who has the name, or neither (it changed meanwhile). */
export async function renameCategory(
  db: Database,
  rename: { id: number; version: number; name: string },
): Promise<{ kind: "renamed"; category: Category } | NameTaken | { kind: "moved" }> {
  const { results } = await renaming.run(db, rename);
  const [row] = results.renamed;
  if (row) return { kind: "renamed", category: categoryShape.render(row) };
  const [taken] = results.taken;
  if (taken) return { kind: "nameTaken", takenBy: taken.id };
  return { kind: "moved" };
}

/**
 * Deleting a category: it becomes a tombstone, only at the version the
 * deletion was decided on and while no live animal names it; its words
 * leave the index; its event shows it as it was.
 */
const deletion = change()
  .step("deleted", (db) =>
    db
      .update(categories)
      .set({ deletedAt: millis("now"), version: nextVersion })
      .where(and(thisCategory, atVersion, live, notExists(livePetIn(db))))
      .returning({ id: categories.id })
      .prepare(),
  )
  .step("unindexed", (db) => unindexName(db, names, categoryId))
  .event({ type: "category.deleted", data: categoryShape, where: thisCategory });

/** Deletes the category if it is still at `version` and no live animal names it: whether it did. */
export const deleteCategory = deletionBy(deletion);
