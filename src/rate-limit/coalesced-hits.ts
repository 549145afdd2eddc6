import type { HitResult, KeyPolicy } from "./rate-limit-types.ts";

/**
 * One Durable Object call for many concurrent requests of one key.
 *
 * A busy key sends many requests at once, and each used to pay its own call
 * to the key's object (on two cores mostly CPU). Here the first request of a
 * key in this isolate calls at once; requests that arrive while that call is
 * in flight wait in line, and when it returns, one of them calls once for
 * all that wait. The object still decides every request, one by one, in
 * arrival order, so counts stay exact and a revocation applies from the next
 * call.
 *
 * Requests may share memory in an isolate but not promises or timers: a
 * promise one request resolves cannot wake another. So a waiting request
 * wakes itself on its own short timer and looks whether its answer has come;
 * the batch it joins is sent from a request that is waiting for it.
 */

/** Asks the key's object to decide `count` requests in turn; answers in the same order. */
export type SendBatch = (policy: KeyPolicy, count: number) => Promise<HitResult[]>;

interface Pending {
  policy: KeyPolicy;
  answer?: { result: HitResult } | { error: unknown };
}

interface Line {
  waiting: Pending[];
  /** When the call in flight was sent; undefined when none is. */
  sentAt?: number;
}

/** Keys with a call in flight in this isolate; an entry lives only while one is. */
const lines = new Map<string, Line>();

/** How often a waiting request looks for its answer: a local call takes a few of these. */
const POLL_MS = 1;

/** The newest policy any member of the batch knows of; the object keeps the newest anyway. */
function newest(batch: Pending[]): KeyPolicy {
  return batch.reduce((a, b) => (b.policy.version > a.policy.version ? b : a)).policy;
}

async function sendWaiting(key: string, line: Line, send: SendBatch): Promise<void> {
  const batch = line.waiting.splice(0);
  line.sentAt = Date.now();
  try {
    // A value an RPC call returns stays tied to the request that made the call;
    // the other members get plain copies they may read from their own requests.
    const results = structuredClone(await send(newest(batch), batch.length));
    if (results.length !== batch.length) throw new Error("the limiter answered a batch partly");
    batch.forEach((pending, index) => {
      const result = results[index];
      if (result) pending.answer = { result };
    });
  } catch (error) {
    for (const pending of batch) pending.answer = { error };
  } finally {
    line.sentAt = undefined;
    if (line.waiting.length === 0) lines.delete(key);
  }
}

/**
 * The decision on one request of the key: at once when no call of that key
 * is in flight here, else with the next batch. A call in flight longer than
 * `staleAfterMs` is taken for lost (its request may have ended) and the next
 * waiting request calls anew; the caller bounds its own wait.
 */
export async function coalescedHit(
  key: string,
  policy: KeyPolicy,
  send: SendBatch,
  staleAfterMs: number,
): Promise<HitResult> {
  const line = lines.get(key) ?? { waiting: [] };
  lines.set(key, line);
  const self: Pending = { policy };
  line.waiting.push(self);
  while (!self.answer) {
    if (line.sentAt === undefined || Date.now() - line.sentAt > staleAfterMs) {
      await sendWaiting(key, line, send);
    } else {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
  if ("error" in self.answer) throw self.answer.error;
  return self.answer.result;
}
