import { env } from "cloudflare:test";
import { and, eq, lte, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { database, millis, runAll, runOne, runValues } from "../../../src/db/database.ts";
import { accounts, apiKeys, pets } from "../../../src/db/schema.ts";

/**
 * What the service needs of Drizzle beyond its documented query builder: a
 * prepared statement's SQL and parameters, its placeholders bound by name,
 * and a D1 result mapped into its rows. These pin that behaviour on real D1,
 * so an upgrade of Drizzle that changes it fails here first.
 */

const db = database(env.DB);
const CREATED = Date.UTC(2026, 4, 4, 12, 30, 0, 125);
const HASH = "d".repeat(64);

beforeAll(async () => {
  await env.DB.batch([
    env.DB.prepare(
      "INSERT INTO accounts (id, email, password_hash, plan, created_at) VALUES (71, 'drizzle@petstore.invalid', '', 'pro', 0)",
    ),
    env.DB.prepare(
      "INSERT INTO api_keys (hash, account_id, last_four, created_at) VALUES (?, 71, 'dddd', ?)",
    ).bind(HASH, CREATED),
  ]);
});

/** A key with its account, joined: the key's timestamp column, and the account's columns aliased. */
const keyWithAccount = db.drizzle
  .select({
    hash: apiKeys.hash,
    createdAt: apiKeys.createdAt,
    account: {
      id: sql<number>`${accounts.id}`.as("account_id_"),
      plan: sql<string>`${accounts.plan}`.as("account_plan"),
    },
  })
  .from(apiKeys)
  .innerJoin(accounts, eq(accounts.id, apiKeys.accountId))
  .where(and(lte(apiKeys.createdAt, millis("before")), eq(apiKeys.hash, sql.placeholder("hash"))))
  .prepare();

describe("a prepared statement run on D1", () => {
  it("binds its placeholders by name and maps the row: a Date for a timestamp, a join's aliases nested", async () => {
    // The values in another order than the placeholders: binding goes by name.
    const rows = await runOne(db, keyWithAccount, { hash: HASH, before: CREATED });
    expect(rows).toEqual([
      { hash: HASH, createdAt: new Date(CREATED), account: { id: 71, plan: "pro" } },
    ]);
    expect(rows[0]?.createdAt).toBeInstanceOf(Date);
    expect(await runOne(db, keyWithAccount, { hash: HASH, before: CREATED - 1 })).toEqual([]);
  });

  it("exposes its SQL with `?` for each placeholder, in order", () => {
    const { sql: text, params } = keyWithAccount.getQuery();
    expect(text).toMatch(/"account_id_".*"account_plan".*<= \?.*= \?/s);
    expect(params).toHaveLength(2);
  });

  it("refuses to run when a placeholder has no value", async () => {
    await expect(runOne(db, keyWithAccount, { hash: HASH })).rejects.toThrow(
      /No value for placeholder "before"/,
    );
  });
});

describe("a batch of prepared statements run on D1", () => {
  it("maps each result at its statement's position: rows returned, a run's result, rows read", async () => {
    const insert = db.drizzle
      .insert(pets)
      .values({
        name: sql.placeholder("name"),
        categoryId: sql.placeholder("categoryId"),
        createdAt: millis("now"),
      })
      .returning({ id: pets.id, name: pets.name, createdAt: pets.createdAt })
      .prepare();
    const rename = db.drizzle
      .update(pets)
      .set({ name: sql`${sql.placeholder("newName")}` })
      .where(eq(pets.id, sql`last_insert_rowid()`))
      .prepare();
    const read = db.drizzle
      .select({ name: pets.name, status: pets.status })
      .from(pets)
      .where(eq(pets.id, sql`last_insert_rowid()`))
      .prepare();
    const values = { name: "Pinned", newName: "Renamed", categoryId: 7, now: CREATED };
    const [inserted, renamed, readBack] = await runAll(db, [insert, rename, read], values);
    expect(inserted).toEqual([
      { id: expect.any(Number), name: "Pinned", createdAt: new Date(CREATED) },
    ]);
    expect(renamed).toMatchObject({ success: true, meta: { changes: 1 } });
    expect(readBack).toEqual([{ name: "Renamed", status: "available" }]);
  });
});

describe("a prepared statement's rows read raw", () => {
  it("gives each row's values in its columns' order, as SQLite stored them", async () => {
    // Stored as SQLite has them: the timestamp in milliseconds, the join's aliases flat.
    const stored = [HASH, CREATED, 71, "pro"];
    const values = { hash: HASH, before: CREATED };
    expect(await runValues(db, keyWithAccount, values)).toEqual([stored]);
  });
});
