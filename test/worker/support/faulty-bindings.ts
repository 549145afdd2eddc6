import { env } from "cloudflare:test";

/**
 * Bindings that fail the way a broken store does (an error, or no answer at
 * all), for `api(path, { bindings })`: the real app runs against the real
 * bindings except these.
 */

const fault = () => new Error("D1_ERROR: injected fault: SQLITE_BUSY in table pets");
const never = () => new Promise<never>(() => {});

function statement(answer: () => Promise<never>): D1PreparedStatement {
  const stmt = {
    bind: () => stmt,
    all: answer,
    raw: answer,
    first: answer,
    run: answer,
  };
  return stmt as unknown as D1PreparedStatement;
}

/** What a fake D1 binding answers itself; its sessions run on it too, with no bookmark. */
type FakeD1 = Pick<D1Database, "prepare" | "batch" | "exec">;

/** The fake as a binding: the app opens a session per request, which runs on the fake. */
export function withSessions(fake: FakeD1): D1Database {
  const session = { prepare: fake.prepare, batch: fake.batch, getBookmark: () => null };
  return { ...fake, withSession: () => session } as unknown as D1Database;
}

export function failingD1(): D1Database {
  return withSessions({
    prepare: () => statement(() => Promise.reject(fault())),
    batch: () => Promise.reject(fault()),
    exec: () => Promise.reject(fault()),
  });
}

/** A D1 that never answers; `onHang` hears each call it leaves hanging. */
export function hangingD1(onHang: () => void = () => {}): D1Database {
  const hang = () => {
    onHang();
    return never();
  };
  return withSessions({ prepare: () => statement(hang), batch: hang, exec: hang });
}

export function failingKV(): KVNamespace {
  const failed = (operation: string) => () =>
    Promise.reject(new Error(`KV ${operation} failed: 500 Internal Server Error (API_KEYS)`));
  return { get: failed("GET"), put: failed("PUT"), list: failed("LIST") } as unknown as KVNamespace;
}

/** A namespace whose objects cannot be reached, as during an outage or overload. */
export function failingLimiter(): Env["RATE_LIMITER"] {
  const unreachable = () =>
    Promise.reject(
      new Error("Durable Object RateLimiter is overloaded. Requests queued for too long."),
    );
  const stub = {
    hitKey: unreachable,
    decideKey: unreachable,
    hitKeyless: unreachable,
    hitBudget: unreachable,
    applyPolicy: unreachable,
    usage: unreachable,
    keyReport: unreachable,
  };
  return {
    idFromName: (name: string) => env.RATE_LIMITER.idFromName(name),
    get: () => stub,
  } as unknown as Env["RATE_LIMITER"];
}

/**
 * The real database, except that every batch breaks at its statement
 * `index` (from 0) the way a store breaks mid-transaction: the statements
 * before it have run inside the batch's transaction when that one fails.
 * Single statements, reads and shorter batches go through untouched, so a
 * test that expects the fault also proves the batch is that long.
 */
export function d1FailingBatchAt(index: number): D1Database {
  return withSessions({
    prepare: (query: string) => env.DB.prepare(query),
    batch: <T>(statements: D1PreparedStatement[]) => {
      if (index >= statements.length) return env.DB.batch<T>(statements);
      // A statement that fails when it runs: malformed JSON for SQLite's json().
      const broken = env.DB.prepare("SELECT json('injected fault')");
      return env.DB.batch<T>(statements.map((statement, i) => (i === index ? broken : statement)));
    },
    exec: (query: string) => env.DB.exec(query),
  });
}

/** A queue that refuses every message, as during a Queues outage. */
export function failingQueue(): Queue {
  const refused = () =>
    Promise.reject(new Error("Queue send failed: 503 Service Unavailable (DELIVERIES)"));
  return { send: refused, sendBatch: refused } as unknown as Queue;
}

/** The real queue of deliveries, recording each message sent to it, in order. */
export function recordingQueue<Body>(sent: Body[]): Queue<Body> {
  const queue = env.DELIVERIES as unknown as Queue<Body>;
  return {
    send: (body: Body) => {
      sent.push(body);
      return queue.send(body);
    },
    sendBatch: (batch: Iterable<MessageSendRequest<Body>>) => {
      const messages = [...batch];
      sent.push(...messages.map((message) => message.body));
      return queue.sendBatch(messages);
    },
  } as unknown as Queue<Body>;
}

/**
 * The real database, except that statements whose SQL matches `pattern`
 * fail when they run: a store that breaks for one kind of write and not
 * for the reads before it.
 */
export function d1FailingStatements(pattern: RegExp): D1Database {
  const failing = new WeakSet<D1PreparedStatement>();
  return withSessions({
    prepare: (query: string) => {
      if (!pattern.test(query)) return env.DB.prepare(query);
      const stmt = statement(() => Promise.reject(fault()));
      failing.add(stmt);
      return stmt;
    },
    // A batch holding a failing statement fails as a whole, as D1's transaction does; the
    // real binding is never handed a statement it did not prepare.
    batch: <T>(statements: D1PreparedStatement[]) =>
      statements.some((stmt) => failing.has(stmt))
        ? Promise.reject(fault())
        : env.DB.batch<T>(statements),
    exec: (query: string) => env.DB.exec(query),
  });
}

/** A bucket that takes no write and no delete, as during an R2 outage; reads go through. */
export function failingR2(): R2Bucket {
  const refused = () =>
    Promise.reject(new Error("R2 put failed: 503 Service Unavailable (PHOTOS)"));
  return {
    head: (key: string) => env.PHOTOS.head(key),
    get: (key: string) => env.PHOTOS.get(key),
    put: refused,
    delete: refused,
    list: refused,
  } as unknown as R2Bucket;
}

/**
 * The real bucket, except that it cannot be listed: work that must be found
 * from D1's rows alone fails if it lists the bucket instead.
 */
export function unlistableR2(): R2Bucket {
  return {
    head: (key: string) => env.PHOTOS.head(key),
    get: (key: string) => env.PHOTOS.get(key),
    put: (key: string, value: ArrayBuffer, options?: R2PutOptions) =>
      env.PHOTOS.put(key, value, options),
    delete: (keys: string | string[]) => env.PHOTOS.delete(keys),
    list: () => Promise.reject(new Error("this test's bucket may not be listed")),
  } as unknown as R2Bucket;
}

/**
 * The real database for the first `batches` batches, then failing every
 * statement and batch: a store that goes down partway through a request,
 * so that nothing after that point reaches D1, as if the Worker had died there.
 */
export function d1FailingAfter(batches: number): D1Database {
  let left = batches;
  const down = failingD1();
  return withSessions({
    prepare: (query: string) => (left > 0 ? env.DB.prepare(query) : down.prepare(query)),
    batch: <T>(statements: D1PreparedStatement[]) => {
      if (left <= 0) return down.batch<T>(statements);
      left -= 1;
      return env.DB.batch<T>(statements);
    },
    exec: (query: string) => env.DB.exec(query),
  });
}
