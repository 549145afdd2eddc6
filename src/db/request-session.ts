import type { ChangeRecord, Database, SessionSource } from "./database.ts";

/**
 * Where a request's reads start: at the primary (it writes, or its reads
 * decide something), at whichever copy is nearest, or at a copy at least as
 * fresh as a bookmark (one the client sent back, or this isolate issued).
 */
export type SessionStart = "first-primary" | "first-unconstrained" | { after: string };

/** The newer of two bookmarks: D1's bookmarks sort oldest to newest. */
export function newerBookmark(a: string | undefined, b: string | undefined): string | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return a < b ? b : a;
}

/**
 * One request's way to D1, through the Sessions API: with read replication
 * on, reads are served by the nearest replica that is fresh enough, and D1
 * keeps each statement of the session at least as fresh as the one before.
 * The D1 session opens at the request's first statement, so a request that
 * never reaches D1 has no bookmark. Statements run on `database`, which
 * shares the binding's prepared statements: nothing is prepared again.
 * A change run on it records here whether events wait for dispatch, so the
 * step after the request's handler sends them whatever the handler did next.
 */
export class RequestSession {
  readonly #binding: SessionSource;
  #start: SessionStart;
  #session: D1DatabaseSession | undefined;
  /** Sessions its queries opened aside (a deciding read at the primary): their bookmarks count too. */
  readonly #aside: D1DatabaseSession[] = [];
  /** What the request's changes did beyond their results: events left waiting, a reply replayed. */
  readonly changes: ChangeRecord = { eventsWaiting: false, replayed: false };
  /** The handle the request's queries take. */
  readonly database: Database;

  /** `db`: a handle whose binding the session opens on, and whose statements it shares. */
  constructor(db: Database, start: SessionStart) {
    this.#binding = db.binding;
    this.#start = start;
    const target: D1DatabaseSession = {
      prepare: (query) => this.#open().prepare(query),
      batch: (statements) => this.#open().batch(statements),
      getBookmark: () => this.#session?.getBookmark() ?? null,
    };
    const binding: SessionSource = {
      withSession: (constraint) => {
        const aside = db.binding.withSession(constraint);
        this.#aside.push(aside);
        return aside;
      },
    };
    this.database = { drizzle: db.drizzle, d1: target, binding, changes: this.changes };
  }

  /**
   * Reads no older than `bookmark`, unless the session already starts later
   * (at the primary, or after a newer one). Only before the first statement.
   */
  notBefore(bookmark: string): void {
    if (this.#session) throw new Error("a session's start is set before its first statement");
    const start = this.#start;
    if (start === "first-primary") return;
    const after = start === "first-unconstrained" ? bookmark : newerBookmark(start.after, bookmark);
    this.#start = { after: after ?? bookmark };
  }

  /**
   * The newest bookmark after the request's statements, its aside sessions'
   * included (a claim that failed need not move its own); undefined when it
   * reached no D1.
   */
  bookmark(): string | undefined {
    return [this.#session, ...this.#aside].reduce<string | undefined>(
      (newest, session) => newerBookmark(newest, session?.getBookmark() ?? undefined),
      undefined,
    );
  }

  #open(): D1DatabaseSession {
    if (!this.#session) {
      const start = this.#start;
      this.#session = this.#binding.withSession(typeof start === "string" ? start : start.after);
    }
    return this.#session;
  }
}
