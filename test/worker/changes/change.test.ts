import { env } from "cloudflare:test";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { change } from "../../../src/changes/change.ts";
import type { Claim } from "../../../src/changes/outcomes.ts";
import { type Drizzle, database, onSession } from "../../../src/db/database.ts";
import { pets } from "../../../src/db/schema.ts";
import { createPet } from "../../../src/pets/pet-changes.queries.ts";
import { findPet, petShape } from "../../../src/pets/pets.queries.ts";
import { UNKNOWN_PROFILE } from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { recordingD1 } from "../support/recording-d1.ts";
import { api } from "../support/request.ts";

/*
 * A change is one batch of named steps in the order declared, with what
 * every change shares (the key's claim and reply, the outbox) added in one
 * order by the change module.
 */

describe("a keyed create's batch", () => {
  it("is the claim, the insert and its words, the give-back and the reply, its event (dispatched already when no endpoint wants it, and asking whether events wait), reads and stored reply, in that order", async () => {
    const { key } = await seedKey();
    const batches: string[][] = [];
    const res = await api("/v1/pets", {
      method: "POST",
      key,
      json: { name: "Stepwise", categoryId: 2 },
      headers: { "Idempotency-Key": "steps-in-order" },
      bindings: { DB: recordingD1(batches) },
    });
    expect(res.status).toBe(201);
    await res.json();
    const steps: [string, RegExp][] = [
      ["forgetExpired", /^delete from "idempotency_records" where .*"created_at" <= \?/],
      ["claim", /^insert into "idempotency_records"/],
      ["pet", /^insert into "pets" .* returning/],
      ["indexed", /^insert into "pet_search" .*changes\(\) = 1/],
      ["giveBack", /^delete from "idempotency_records" where .*changes\(\) = 0/],
      [
        "store",
        /^update "idempotency_records" set "response_status" = \?, "response_body" = \(SELECT json_object\('id', "pets"."id", 'name', /,
      ],
      [
        "pet.created",
        /^insert into "events" .*CASE WHEN EXISTS .*"webhooks".* THEN NULL ELSE .*changes\(\) = 1\) returning \("events"."dispatched_at" is null OR EXISTS \(SELECT 1 FROM "events" AS "any_event"/s,
      ],
      ["refusal", /^select \(SELECT "id" FROM "categories" .*\(CASE WHEN .* from "accounts" where/],
      ["stored", /^select "response_status", "response_body" from "idempotency_records"/],
    ];
    expect(batches).toHaveLength(1);
    const [batch = []] = batches;
    expect(batch).toHaveLength(steps.length);
    batch.forEach((statement, i) => {
      const [name, pattern] = steps[i] ?? ["", /$^/];
      expect(statement, name).toMatch(pattern);
    });
  });
});

describe("declaring a change", () => {
  const insert = () =>
    change().step("pet", (db) =>
      db
        .insert(pets)
        .values({ name: "x", categoryId: 1, createdAt: new Date(0) })
        .prepare(),
    );
  const read = (db: Drizzle) => db.select().from(pets).prepare();

  it("refuses steps out of order: an event before any step, a step after a read, anything after the reply", () => {
    const created = { type: "pet.created", data: petShape, where: undefined } as const;
    expect(() => change().event(created)).toThrow(/out of order/);
    expect(() => insert().read("all", read).step("again", read)).toThrow(/out of order/);
    expect(() => insert().read("all", read).event(created)).toThrow(/out of order/);
    const replied = insert().reply(201, petShape, eq(pets.id, sql`last_insert_rowid()`));
    expect(() => replied.read("all", read)).toThrow(/out of order/);
  });

  it("refuses a name taken by another step or by a step every change shares", () => {
    expect(() => insert().read("pet", read)).toThrow(/two steps named pet/);
    expect(() => insert().read("stored", read)).toThrow(/two steps named stored/);
    expect(() => change().step("claim", read)).toThrow(/two steps named claim/);
  });
});

/** A D1 target that counts what is prepared on it and the batches it runs. */
function counting<T extends D1Database | D1DatabaseSession>(target: T) {
  const counts = { prepared: 0, batches: 0 };
  const counted = {
    prepare: (query: string) => {
      counts.prepared++;
      return target.prepare(query);
    },
    batch: (statements: D1PreparedStatement[]) => {
      counts.batches++;
      return target.batch(statements);
    },
    getBookmark: () => ("getBookmark" in target ? target.getBookmark() : null),
    // A replay reads the record that won the claim at the primary, in a session of its own.
    withSession: (start: string) => ("withSession" in target ? target.withSession(start) : null),
  };
  return { counts, target: counted as unknown as T };
}

describe("a change and a read on a D1 session", () => {
  it("run there with the statements prepared once for the binding", async () => {
    // A binding of its own, so its Drizzle instance prepares its statements afresh, here.
    const binding = counting(env.DB);
    const db = database(binding.target);
    const { hash: apiKeyHash } = await seedKey();
    let request = 0;
    /** One request's work, through a session of its own that starts at the primary. */
    const throughSession = async () => {
      request++;
      const session = counting(env.DB.withSession("first-primary"));
      // What the request's session records of its changes: no endpoint waits for these events.
      const changes = { eventsWaiting: false, replayed: false };
      const onPrimary = { ...onSession(db, session.target), changes };
      const pet = { name: `Session ${request}`, categoryId: 5 };
      const made = await createPet(
        onPrimary,
        pet,
        { owner: { kind: "key", apiKeyHash }, now: Date.now() },
        undefined,
      );
      const claim: Claim = {
        apiKeyHash,
        idempotencyKey: `session-${request}`,
        operation: "createPet",
        requestHash: "same body",
        now: Date.now(),
      };
      const stored = await createPet(
        onPrimary,
        pet,
        { owner: { kind: "key", apiKeyHash }, now: claim.now },
        claim,
      );
      const replayed = await createPet(
        onPrimary,
        pet,
        { owner: { kind: "key", apiKeyHash }, now: claim.now },
        claim,
      );
      const found = made.kind === "made" ? await findPet(onPrimary, made.body.id) : undefined;
      return { made, stored, replayed, found, session, changes };
    };

    await throughSession();
    const preparedOnce = binding.counts.prepared;
    expect(preparedOnce).toBeGreaterThan(0);

    const { made, stored, replayed, found, session, changes } = await throughSession();
    expect(binding.counts).toEqual({ prepared: preparedOnce, batches: 0 });
    expect(session.counts.batches).toBe(3);
    expect(session.counts.prepared).toBeGreaterThan(0);
    expect(session.target.getBookmark()).not.toBeNull();

    const expected = {
      id: expect.any(Number),
      name: "Session 2",
      categoryId: 5,
      status: "available",
      ...UNKNOWN_PROFILE,
      etag: '"1"',
      photoUrls: [],
    };
    expect(made).toEqual({ kind: "made", body: expected });
    expect(changes).toEqual({ eventsWaiting: false, replayed: true });
    expect(found).toEqual(made.kind === "made" ? made.body : undefined);
    expect(stored).toMatchObject({ kind: "stored", response: { status: 201, body: expected } });
    expect(replayed).toEqual({
      kind: "replayed",
      response: stored.kind === "stored" ? stored.response : undefined,
    });
  });
});
