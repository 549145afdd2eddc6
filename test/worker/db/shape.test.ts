import { env } from "cloudflare:test";
import { eq, type SQL } from "drizzle-orm";
import type { SQLiteTable } from "drizzle-orm/sqlite-core";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MAX_ID } from "../../../src/api/identifiers.ts";
import { categoryShape } from "../../../src/categories/categories.queries.ts";
import { database, runOne, runValues } from "../../../src/db/database.ts";
import { PET_AGES, PET_SEXES, PET_SIZES } from "../../../src/db/pet-profile-columns.ts";
import { categories, EVENT_TYPES, events, orders, pets, webhooks } from "../../../src/db/schema.ts";
import type { Definition, Shape } from "../../../src/db/shape.ts";
import { eventShape } from "../../../src/events/event-records.ts";
import { orderShape } from "../../../src/orders/orders.queries.ts";
import { petShape } from "../../../src/pets/pets.queries.ts";
import { webhookShape } from "../../../src/webhooks/webhooks.queries.ts";
import { runs as numRuns, seed } from "../support/property.ts";

/**
 * A shape is rendered twice: by TypeScript from the row a read selects (what
 * the API returns), and by SQL with json_object (an event's `data`, a stored
 * reply). For random rows written to D1, the two must be the same object;
 * and the rendering of a row D1 answers raw (a listing's) the same text.
 */

const db = database(env.DB);
const ACCOUNT_ID = 81;
// RUNS= in the thousands takes far beyond the default per-test timeout.
const TIMEOUT_MS = 180_000;

/** Tables whose ids the rows here choose, up to the largest the API allows. */
const CHOSEN_IDS = ["categories", "orders", "pets", "webhooks"];
let sequences: { name: string; seq: number }[] = [];

beforeAll(async () => {
  await env.DB.prepare(
    `INSERT INTO accounts (id, email, password_hash, created_at) VALUES (${ACCOUNT_ID}, 'shapes@petstore.invalid', '', 0)`,
  ).run();
  const { results } = await env.DB.prepare(
    `SELECT name, seq FROM sqlite_sequence WHERE name IN (${CHOSEN_IDS.map(() => "?").join(", ")})`,
  )
    .bind(...CHOSEN_IDS)
    .all<{ name: string; seq: number }>();
  sequences = results;
});

// Later files share this database: they must get ids after their predecessors', not after these.
afterAll(async () => {
  await env.DB.batch([
    ...CHOSEN_IDS.map((name) => env.DB.prepare(`DELETE FROM "${name}"`)),
    ...CHOSEN_IDS.map((name) => {
      const seq = sequences.find((sequence) => sequence.name === name)?.seq;
      return seq === undefined
        ? env.DB.prepare("DELETE FROM sqlite_sequence WHERE name = ?").bind(name)
        : env.DB.prepare("UPDATE sqlite_sequence SET seq = ? WHERE name = ?").bind(seq, name);
    }),
  ]);
});

/**
 * The row `where` finds, rendered by TypeScript from its columns and by SQL
 * as JSON; read raw too, it must render as the same JSON text (the same
 * members, values and order) as read through Drizzle.
 */
async function bothRenderings<D extends Definition>(
  shape: Shape<D>,
  where: SQL,
): Promise<{ typescript: unknown; sql: unknown }> {
  const table = shape.table as SQLiteTable;
  const read = db.drizzle.select(shape.columns).from(table).where(where).prepare();
  const [row] = await runOne(db, read, {});
  const [values] = await runValues(db, read, {});
  const [rendered] = await runOne(
    db,
    db.drizzle.select({ json: shape.json }).from(table).where(where).prepare(),
    {},
  );
  if (!row || !values || !rendered) throw new Error("the row written is not there");
  expect(JSON.stringify(shape.fromValues(values))).toBe(JSON.stringify(shape.render(row)));
  return { typescript: shape.render(row), sql: JSON.parse(rendered.json) };
}

async function check<Ts extends unknown[]>(property: fc.IAsyncProperty<Ts>) {
  await fc.assert(property, { seed, numRuns }).catch((error: unknown) => {
    throw new Error(`the renderings differ with seed ${seed}: ${String(error)}`);
  });
}

/** Any Unicode text, control characters included: JSON escapes them both ways. */
const text = fc.string({ unit: "binary", maxLength: 30 });
const id = fc.integer({ min: 1, max: MAX_ID });
/** Milliseconds from 1970 to the end of year 9999, the span RFC 3339 writes. */
const instant = fc.integer({ min: 0, max: 253_402_300_799_999 });
const petStatus = fc.constantFrom("available", "pending", "sold");
const unknownOr = <T>(known: fc.Arbitrary<T>) => fc.option(known, { nil: null });
/** An animal's profile, each field known or not. */
const profile = fc.record({
  shelterId: unknownOr(id),
  breed: unknownOr(text),
  age: unknownOr(fc.constantFrom(...PET_AGES)),
  sex: unknownOr(fc.constantFrom(...PET_SEXES)),
  size: unknownOr(fc.constantFrom(...PET_SIZES)),
  goodWithChildren: unknownOr(fc.boolean()),
  goodWithDogs: unknownOr(fc.boolean()),
  goodWithCats: unknownOr(fc.boolean()),
  houseTrained: unknownOr(fc.boolean()),
  specialNeeds: unknownOr(fc.boolean()),
  spayedNeutered: unknownOr(fc.boolean()),
  description: unknownOr(text),
});

describe(`SQL renders each shape as the API does (seed ${seed}, ${numRuns} runs each)`, () => {
  it(
    "Pet",
    async () => {
      await check(
        fc.asyncProperty(
          id,
          text,
          id,
          petStatus,
          id,
          profile,
          async (petId, name, categoryId, status, version, known) => {
            await db.drizzle.delete(pets).where(eq(pets.id, petId));
            await db.drizzle.insert(pets).values({
              id: petId,
              name,
              categoryId,
              status,
              version,
              createdAt: new Date(0),
              ...known,
            });
            const { typescript, sql } = await bothRenderings(petShape, eq(pets.id, petId));
            expect(sql).toEqual(typescript);
            // Every key, in the API's order.
            expect(Object.keys(sql as object)).toEqual(Object.keys(typescript as object));
            expect(typescript).toEqual({
              id: petId,
              name,
              categoryId,
              status,
              ...known,
              distanceKm: null,
              etag: `"${version}"`,
              photoUrls: [],
            });
          },
        ),
      );
    },
    TIMEOUT_MS,
  );

  it(
    "Category",
    async () => {
      await check(
        fc.asyncProperty(id, text, id, async (categoryId, name, version) => {
          await db.drizzle.delete(categories).where(eq(categories.id, categoryId));
          await db.drizzle
            .insert(categories)
            .values({ id: categoryId, name, version, createdAt: new Date(0) });
          const where = eq(categories.id, categoryId);
          const { typescript, sql } = await bothRenderings(categoryShape, where);
          expect(sql).toEqual(typescript);
          expect(typescript).toEqual({ id: categoryId, name, etag: `"${version}"` });
        }),
      );
    },
    TIMEOUT_MS,
  );

  it(
    "Order",
    async () => {
      const status = fc.constantFrom("placed", "completed", "cancelled");
      await check(
        fc.asyncProperty(
          id,
          id,
          status,
          instant,
          instant,
          async (orderId, petId, orderStatus, createdAt, updatedAt) => {
            await db.drizzle.delete(orders);
            await db.drizzle.delete(pets).where(eq(pets.id, petId));
            await db.drizzle
              .insert(pets)
              .values({ id: petId, name: "Ordered", categoryId: 1, createdAt: new Date(0) });
            await db.drizzle.insert(orders).values({
              id: orderId,
              accountId: ACCOUNT_ID,
              petId,
              status: orderStatus,
              createdAt: new Date(createdAt),
              updatedAt: new Date(updatedAt),
            });
            const { typescript, sql } = await bothRenderings(orderShape, eq(orders.id, orderId));
            expect(sql).toEqual(typescript);
            expect(typescript).toMatchObject({
              createdAt: new Date(createdAt).toISOString(),
              updatedAt: new Date(updatedAt).toISOString(),
            });
          },
        ),
      );
    },
    TIMEOUT_MS,
  );

  it(
    "Webhook, whose disabledReason is there only when set",
    async () => {
      const selectors = fc.uniqueArray(fc.constantFrom(...EVENT_TYPES, "pet.*", "order.*"), {
        minLength: 1,
        maxLength: 7,
      });
      await check(
        fc.asyncProperty(
          id,
          text,
          selectors,
          fc.constantFrom("enabled", "disabled"),
          fc.option(text, { nil: null }),
          instant,
          async (webhookId, url, types, status, disabledReason, createdAt) => {
            await db.drizzle.delete(webhooks).where(eq(webhooks.id, webhookId));
            await db.drizzle.insert(webhooks).values({
              id: webhookId,
              accountId: ACCOUNT_ID,
              url,
              types: JSON.stringify(types),
              secret: "whsec_shape",
              status,
              disabledReason,
              afterSeq: 0,
              createdAt: new Date(createdAt),
            });
            const { typescript, sql } = await bothRenderings(
              webhookShape,
              eq(webhooks.id, webhookId),
            );
            expect(sql).toEqual(typescript);
            expect(Object.hasOwn(sql as object, "disabledReason")).toBe(disabledReason !== null);
            expect(typescript).toMatchObject({ types });
          },
        ),
      );
    },
    TIMEOUT_MS,
  );

  it(
    "Event, whose previousStatus and changes are there only when set",
    async () => {
      const json = fc.jsonValue({ maxDepth: 3 });
      await check(
        fc.asyncProperty(
          fc.constantFrom(...EVENT_TYPES),
          json,
          fc.option(petStatus, { nil: null }),
          fc.option(fc.array(json, { maxLength: 3 }), { nil: null }),
          instant,
          async (type, data, previousStatus, changes, createdAt) => {
            const eventId = `evt_shape_${crypto.randomUUID()}`;
            await db.drizzle.insert(events).values({
              id: eventId,
              type,
              data: JSON.stringify(data),
              previousStatus,
              changes: changes === null ? null : JSON.stringify(changes),
              createdAt: new Date(createdAt),
            });
            const { typescript, sql } = await bothRenderings(eventShape, eq(events.id, eventId));
            expect(sql).toEqual(typescript);
            expect(Object.hasOwn(sql as object, "previousStatus")).toBe(previousStatus !== null);
            expect(Object.hasOwn(sql as object, "changes")).toBe(changes !== null);
          },
        ),
      );
    },
    TIMEOUT_MS,
  );
});
