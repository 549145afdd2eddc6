import type { HitResult, KeyPolicy } from "./rate-limit-types.ts";

/**
 * Decides a key's requests in order, each with the policy it brought: from
 * the isolate's share of the key's budget, else in one call to its Durable
 * Object.
 */
export type DecideHits = (keyHash: string, policies: KeyPolicy[]) => Promise<HitResult[]>;

interface Batch {
  policies: KeyPolicy[];
  /** The call in flight when the batch opened: it goes once that has returned. */
  after?: Promise<unknown>;
  /** The call deciding the batch, once one of its requests has sent it. */
  results?: Promise<HitResult[]>;
}

interface KeyLine {
  /** The batch whose call is in flight. */
  sent?: Batch;
  /** The batch requests arriving now join; it goes when `sent` returns. */
  open?: Batch;
}

const ignore = () => {};

/**
 * Coalesces an isolate's concurrent requests of one key into one decision
 * per batch, so at most one call of a key is in flight from the isolate. A
 * request finding none in flight is decided at once; requests arriving while
 * one is in flight join one batch, decided as soon as that call returns (from
 * the share it may have brought, the rest in one call), so every request is
 * decided in arrival order (exact counts, and a revocation the object has
 * taken reaches every request sent after it).
 *
 * Every request of a batch waits for the call before it, and the first of
 * them to resume sends the batch from its own context; the others await that
 * request's promise. Awaiting another request's promise is what the runtime
 * lets a request do (it resumes in its own context, or not at all if its
 * client has gone), where settling a promise for another request is not. A
 * request that gives up waiting (the caller's timeout) starts the key's line
 * afresh, so a batch whose sender vanished holds up no one after it.
 */
export function keyHitBatches(decide: DecideHits) {
  const lines = new Map<string, KeyLine>();

  async function send(keyHash: string, line: KeyLine, batch: Batch): Promise<HitResult[]> {
    line.sent = batch;
    try {
      return await decide(keyHash, batch.policies);
    } finally {
      if (line.sent === batch) line.sent = undefined;
      if (!line.sent && !line.open && lines.get(keyHash) === line) lines.delete(keyHash);
    }
  }

  async function join(keyHash: string, line: KeyLine, policy: KeyPolicy): Promise<HitResult> {
    line.open ??= { policies: [], after: line.sent?.results };
    const batch = line.open;
    const index = batch.policies.push(policy) - 1;
    await batch.after?.then(ignore, ignore);
    if (!batch.results) {
      if (line.open === batch) line.open = undefined;
      batch.results = send(keyHash, line, batch);
    }
    return (await batch.results)[index] as HitResult;
  }

  return {
    /** Decides one request of the key, alone or in a batch, in the order requests arrived. */
    async hit(keyHash: string, policy: KeyPolicy): Promise<HitResult> {
      const line = lines.get(keyHash);
      if (line?.sent || line?.open) return join(keyHash, line, policy);
      const fresh: KeyLine = line ?? {};
      lines.set(keyHash, fresh);
      const batch: Batch = { policies: [policy] };
      batch.results = send(keyHash, fresh, batch);
      return (await batch.results)[0] as HitResult;
    },
    /** Forgets the key's batches: its requests still waiting gave up on them. */
    abandon(keyHash: string): void {
      lines.delete(keyHash);
    },
  };
}

/**
 * Every change to a key raises its version, so the newest policy in a batch
 * carries everything the others know (a revocation included); the object
 * keeps the newest it has seen whichever it is sent.
 */
export function newestPolicy(policies: KeyPolicy[]): KeyPolicy {
  return policies.reduce((newest, policy) => (policy.version > newest.version ? policy : newest));
}
