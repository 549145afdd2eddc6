import { type SQL, sql } from "drizzle-orm";
import {
  type Database,
  type Drizzle,
  type ResultOf,
  runAll,
  type Statement,
} from "../db/database.ts";
import type { Definition, Shape } from "../db/shape.ts";
import { guardStorage } from "../storage/storage-guard.ts";
import { oncePer } from "../utils/once-per.ts";
import {
  claimValues,
  earlierOutcome,
  isClaimConflict,
  keyStatements,
  responseOf,
} from "./idempotency.queries.ts";
import { type EventOf, eventStatement, newEventId } from "./outbox-statements.ts";
import type { Claim, Made, Outcome, Replayed, Reused, Stored, StoredResponse } from "./outcomes.ts";

/**
 * A change to D1: one batch (one transaction) of named steps, in the order
 * they are declared. A resource declares its own statements, its events and
 * the reply a keyed request stores; this module adds what every change
 * shares, in one order:
 *
 *   with a key:   forgetExpired, claim
 *                 the change's steps
 *   with a key:   giveBack, store
 *                 its events (each only if the statement before changed one row,
 *                   written dispatched when no endpoint wants it)
 *                 its reads
 *   with a key:   stored
 *
 * When an event's statement finds events waiting, the run records it on the
 * database handle's change record (a request's session), and the step after
 * the request's handler dispatches them: no caller of a change dispatches.
 * A keyed change happens at most once per key: a claim that meets a live
 * record fails the batch whole and the earlier request's reply is replayed
 * (or the key refused); a change that made nothing gives its claim back in
 * the same batch. Statements are prepared once per Drizzle instance, so a
 * handle over a D1 session runs them without preparing again.
 */

type AnyStatement = Statement<unknown>;
type Values = Record<string, unknown>;

interface Declared {
  name: string;
  build: (db: Drizzle) => AnyStatement;
}

interface Declaration {
  steps: readonly Declared[];
  events: readonly EventOf[];
  reads: readonly Declared[];
  reply: { status: number; body: SQL<string> } | undefined;
}

/** What a run of the change gives: each declared step's and read's result by name. */
interface Done<Results> {
  results: Results;
}

interface Answering<Results, Body, Refusal> {
  values: Values;
  claim?: Claim | undefined;
  /** Without a key: what the change answers when it made something; undefined when it changed nothing. */
  made?: (results: Results) => Body | undefined;
  /** What it answers when it changed nothing; without it, that is a defect. */
  refused?: (results: Results) => Refusal;
}

/** The steps the module adds: a declared step or read may not take their names. */
const SHARED_STEPS = ["forgetExpired", "claim", "giveBack", "store", "stored"];

interface Plan {
  names: string[];
  statements: AnyStatement[];
}

/** The placeholder the id of a change's `i`th event is bound to. */
const eventIdName = (i: number) => `eventId${i}`;

function at(plan: Plan, results: unknown[], name: string): unknown {
  return results[plan.names.indexOf(name)];
}

class Change<Results> {
  readonly #declared: Declaration;
  readonly #eventIds: string[];
  readonly #plans = oncePer((db: Drizzle) => this.#prepare(db));

  constructor(declared: Declaration) {
    this.#declared = declared;
    this.#eventIds = declared.events.map((_, i) => eventIdName(i));
  }

  /** A statement of the change itself, run after those declared before it. */
  step<N extends string, S extends AnyStatement>(
    name: N,
    build: (db: Drizzle) => S,
  ): Change<Results & Record<N, ResultOf<S>>> {
    this.#expect(name, this.#declared.events.length + this.#declared.reads.length === 0, "a step");
    return new Change({ ...this.#declared, steps: [...this.#declared.steps, { name, build }] });
  }

  /** An event of the change, written only if the statement before it changed one row. */
  event(event: EventOf): Change<Results> {
    const after = this.#declared.steps.length > 0 && this.#declared.reads.length === 0;
    this.#expect(event.type, after, "an event");
    return new Change({ ...this.#declared, events: [...this.#declared.events, event] });
  }

  /** A read after the change and its events, in the same transaction. */
  read<N extends string, S extends AnyStatement>(
    name: N,
    build: (db: Drizzle) => S,
  ): Change<Results & Record<N, ResultOf<S>>> {
    this.#expect(name, this.#declared.steps.length > 0, "a read");
    return new Change({ ...this.#declared, reads: [...this.#declared.reads, { name, build }] });
  }

  /**
   * What a keyed run stores with its key, to answer every retry as the
   * first: `status`, and the body rendered in SQL by `shape` from its row
   * that `where` finds once the change is made.
   */
  reply<D extends Definition>(status: number, shape: Shape<D>, where: SQL): Change<Results> {
    this.#expect("reply", this.#declared.steps.length > 0, "the reply");
    const body = sql<string>`(SELECT ${shape.json} FROM ${shape.table} WHERE ${where})`;
    return new Change({ ...this.#declared, reply: { status, body } });
  }

  /** Runs the change without a key, binding `values` by placeholder name. */
  async run(db: Database, values: Values): Promise<Done<Results>> {
    const plan = this.#plans(db.drizzle).plain;
    const results = await guardStorage("D1", () => runAll(db, plan.statements, this.#bind(values)));
    return this.#done(db, plan, results);
  }

  /**
   * Runs the change, once per key when `claim` is given, and answers with
   * what `made` reads from its results, or with the reply stored with the
   * key, or with what `refused` reads when it changed nothing.
   */
  answer<Body, Refusal extends object = never>(
    db: Database,
    request: Answering<Results, Body, Refusal> & { claim?: undefined; made: unknown },
  ): Promise<Made<Body> | Refusal>;
  answer<Body, Refusal extends object = never>(
    db: Database,
    request: Answering<Results, Body, Refusal> & { claim: Claim },
  ): Promise<Stored | Refusal | Replayed | Reused>;
  answer<Body, Refusal extends object = never>(
    db: Database,
    request: Answering<Results, Body, Refusal> & { made: unknown },
  ): Promise<Outcome<Body, Refusal>>;
  async answer<Body, Refusal extends object = never>(
    db: Database,
    { values, claim, made, refused }: Answering<Results, Body, Refusal>,
  ): Promise<Outcome<Body, Refusal>> {
    const refusal = (results: Results): Refusal => {
      if (refused) return refused(results);
      throw new Error("a change made nothing, and says no reason why");
    };
    if (claim === undefined) {
      if (!made) throw new Error("a change run without a key must say what it made");
      const { results } = await this.run(db, values);
      const body = made(results);
      if (body === undefined) return refusal(results);
      return { kind: "made", body };
    }
    const ran = await this.#runOnce(db, claim, values);
    if ("kind" in ran) return ran;
    if (ran.stored) return { kind: "stored", response: ran.stored };
    return refusal(ran.results);
  }

  /**
   * Runs the keyed batch. When a concurrent or earlier request already holds
   * the key, its claim fails this batch whole and that request's response
   * is replayed instead, or the key refused if it was used for another
   * request: one change per key, however retries interleave, and never a
   * 409 for a retry.
   */
  async #runOnce(
    db: Database,
    claim: Claim,
    values: Values,
  ): Promise<(Done<Results> & { stored: StoredResponse | undefined }) | Replayed | Reused> {
    const plan = this.#plans(db.drizzle).keyed;
    if (!plan) throw new Error("a change without a reply cannot run with a key");
    const bound = { ...this.#bind(values), ...claimValues(claim) };
    // The record that failed the claim can expire and be swept before it is
    // read; the key is then free, and a second run claims it.
    for (let attempt = 1; attempt <= 2; attempt++) {
      const ran = await guardStorage("D1", async () => {
        try {
          return await runAll(db, plan.statements, bound);
        } catch (error) {
          if (isClaimConflict(error)) return undefined;
          throw error;
        }
      });
      if (ran) {
        const [row] = at(plan, ran, "stored") as { status: number | null; body: string | null }[];
        return { ...this.#done(db, plan, ran), stored: row && responseOf(row) };
      }
      const earlier = await earlierOutcome(db, claim);
      if (earlier) return earlier;
    }
    throw new Error("an idempotency claim failed twice on a record nobody holds");
  }

  #bind(values: Values): Values {
    return { ...values, ...Object.fromEntries(this.#eventIds.map((id) => [id, newEventId()])) };
  }

  /** The results by name, once whether events wait is recorded where `db` keeps its changes. */
  #done(db: Database, plan: Plan, results: unknown[]): Done<Results> {
    const { steps, events, reads } = this.#declared;
    const named = [...steps, ...reads].map(({ name }) => [name, at(plan, results, name)]);
    const waiting = events.some(({ type }) =>
      (at(plan, results, type) as { waiting: boolean }[]).some((row) => row.waiting),
    );
    if (db.changes && waiting) db.changes.eventsWaiting = true;
    return { results: Object.fromEntries(named) as Results };
  }

  /** The change's batches, with and without a key, prepared once for `db`. */
  #prepare(db: Drizzle): { plain: Plan; keyed: Plan | undefined } {
    const { steps, events, reads, reply } = this.#declared;
    const named = (list: readonly Declared[]) =>
      list.map(({ name, build }) => [name, build(db)] as const);
    const change = named(steps);
    const outbox = events.map(
      (event, i) => [event.type, eventStatement(db, event, eventIdName(i))] as const,
    );
    const after = named(reads);
    const plan = (list: (readonly [string, AnyStatement])[]): Plan => ({
      names: list.map(([name]) => name),
      statements: list.map(([, statement]) => statement),
    });
    const plain = plan([...change, ...outbox, ...after]);
    if (!reply) return { plain, keyed: undefined };
    const key = keyStatements(db, reply);
    return {
      plain,
      keyed: plan([
        ["forgetExpired", key.forgetExpired],
        ["claim", key.claim],
        ...change,
        ["giveBack", key.giveBack],
        ["store", key.store],
        ...outbox,
        ...after,
        ["stored", key.stored],
      ]),
    };
  }

  /** Declarations read top to bottom: steps, then events, then reads, then the reply. */
  #expect(name: string, inOrder: boolean, what: string): void {
    const { steps, reads, reply } = this.#declared;
    if (!inOrder || reply) throw new Error(`${what} (${name}) is declared out of order`);
    const taken = [...SHARED_STEPS, ...[...steps, ...reads].map((step) => step.name)];
    if (taken.includes(name)) throw new Error(`a change has two steps named ${name}`);
  }
}

/**
 * A change that deletes a record only if it is still at `version` (and
 * nothing else forbids it), run as at `now`: whether its `deleted` step took it.
 */
export function deletionBy(deletion: {
  run(db: Database, values: Values): Promise<Done<{ deleted: unknown[] }>>;
}) {
  return async (db: Database, values: { id: number; version: number; now: number }) => {
    const { results } = await deletion.run(db, values);
    return { deleted: results.deleted.length > 0 };
  };
}

/** A change with no steps yet: declare them in the order they run. */
export function change(): Change<Record<never, never>> {
  return new Change({ steps: [], events: [], reads: [], reply: undefined });
}
