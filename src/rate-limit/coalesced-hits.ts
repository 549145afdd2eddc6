import type { HitResult, KeyPolicy } from "./rate-limit-types.ts";

/**
 * One Durable Object call for many concurrent requests of one key.
 *
 * A busy key sends many requests at once, and each used to pay its own call
 * to the key's object, most of whose cost is the call itself. Here the first
 * request of a key in this isolate calls at once; requests that arrive while
 * that call is in flight wait in line, and when it returns, one of them calls
 * once for all that wait. The object still decides every request, one by
 * one, in arrival order, so counts stay exact and a revocation applies from
 * the next call.
 *
 * Requests may share memory in an isolate, but workerd ties promises and
 * timers to the request that made them: a waiting request must be woken by
 * its own timer, not by another request resolving its promise. So a waiting
 * request looks for its answer on its own short timer, and the batch it joins
 * is sent by a request that is itself in that batch.
 */

/** Asks the key's object to decide `count` requests in turn; answers in the same order. */
export type SendBatch = (policy: KeyPolicy, count: number) => Promise<HitResult[]>;

interface Pending {
  policy: KeyPolicy;
  answer?: { result: HitResult } | { error: unknown };
}

interface Batch {
  members: Pending[];
  sentAt: number;
}

interface Line {
  waiting: Pending[];
  inFlight?: Batch;
}

/** Keys with a call in flight or requests waiting in this isolate; an entry lives only that long. */
const lines = new Map<string, Line>();

/** How long a waiting request sleeps between looks: short at first, as a local call takes a few ms. */
const pollDelays = [1, 1, 2, 4, 8];

/** The newest policy any member of the batch knows of; the object keeps the newest anyway. */
function newest(members: Pending[]): KeyPolicy {
  return members.reduce((a, b) => (b.policy.version > a.policy.version ? b : a)).policy;
}

function answer(members: Pending[], answers: (index: number) => Pending["answer"]): void {
  members.forEach((member, index) => {
    member.answer ??= answers(index);
  });
}

function forget(key: string, line: Line): void {
  if (!line.inFlight && line.waiting.length === 0 && lines.get(key) === line) lines.delete(key);
}

async function sendWaiting(key: string, line: Line, send: SendBatch): Promise<void> {
  const members = line.waiting.splice(0);
  if (members.length === 0) return;
  const batch: Batch = { members, sentAt: Date.now() };
  line.inFlight = batch;
  try {
    // A value an RPC call returns stays tied to the request that made the call;
    // the other members get plain copies they may read from their own requests.
    const results = structuredClone(await send(newest(members), members.length));
    if (results.length !== members.length) throw new Error("the limiter answered a batch partly");
    answer(members, (index) => {
      const result = results[index];
      return result ? { result } : { error: new Error("the limiter skipped a request") };
    });
  } catch (error) {
    answer(members, () => ({ error }));
  } finally {
    if (line.inFlight === batch) line.inFlight = undefined;
    forget(key, line);
  }
}

/**
 * A call in flight longer than `staleAfterMs` is taken for lost (the request
 * that sent it may have ended): its members that have no answer yet are told
 * so, rather than sent again, which could count them twice.
 */
function dropIfStale(line: Line, staleAfterMs: number, now: number): void {
  const batch = line.inFlight;
  if (!batch || now - batch.sentAt <= staleAfterMs) return;
  line.inFlight = undefined;
  const lost = new Error(`the limiter did not answer within ${staleAfterMs} ms`);
  answer(batch.members, () => ({ error: lost }));
}

/**
 * The decision on one request of the key: at once when no call of that key
 * is in flight here, else with the next batch.
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
  for (let looks = 0; !self.answer; looks += 1) {
    dropIfStale(line, staleAfterMs, Date.now());
    if (!self.answer && !line.inFlight) await sendWaiting(key, line, send);
    if (!self.answer) {
      const delay = pollDelays[Math.min(looks, pollDelays.length - 1)];
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
  forget(key, line);
  if ("error" in self.answer) throw self.answer.error;
  return self.answer.result;
}
