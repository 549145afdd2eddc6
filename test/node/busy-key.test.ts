import { setTimeout as sleep } from "node:timers/promises";
import { describe, expect, it } from "vitest";
import { lastLine, serveForFile } from "./cli.ts";

// A busy key's concurrent requests share Durable Object calls where the
// runtime lets one request await another's (as under `npm start` and when
// deployed; not in Vitest's Workers runtime), so they are tried here with
// real parallel HTTP requests, as a client sends them.
const local = serveForFile();

async function createKey(plan: string): Promise<string> {
  const result = await local.sandbox.key("create", "--plan", plan);
  expect(result.code).toBe(0);
  return lastLine(result.stdout);
}

interface Reply {
  status: number;
  code?: string;
  remaining: string | null;
  startedAt: number;
  answeredAt: number;
}

async function listPets(key: string): Promise<Reply> {
  const startedAt = performance.now();
  const response = await fetch(`${local.server.origin}/v1/pets?limit=1`, {
    headers: { Authorization: `Bearer ${key}` },
  });
  const body = (await response.json()) as { code?: string };
  const remaining = response.headers.get("X-RateLimit-Remaining");
  const answeredAt = performance.now();
  return { status: response.status, code: body.code, remaining, startedAt, answeredAt };
}

function tally(replies: Reply[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const { status, code } of replies) {
    const label = status === 429 ? String(code) : String(status);
    counts[label] = (counts[label] ?? 0) + 1;
  }
  return counts;
}

/** What the runtime logs when a request waits on another's call and never resumes. */
const STRANDED =
  /hung and would never generate a response|Promise will never complete|on behalf of a different request/;

/**
 * Waits out the end of a UTC minute, so a burst falls inside one minute
 * window: one takes about a second here, so ten leave room for a slow machine.
 */
async function awayFromMinuteEnd(): Promise<void> {
  const intoMinute = Date.now() % 60_000;
  if (intoMinute > 50_000) await sleep(60_000 - intoMinute + 500);
}

describe("a busy key's concurrent requests", () => {
  it("are counted exactly: a Free key admits 60 of 150 parallel requests", async () => {
    const key = await createKey("free");
    await awayFromMinuteEnd();
    const replies = await Promise.all(Array.from({ length: 150 }, () => listPets(key)));
    expect(tally(replies)).toEqual({ 200: 60, rate_limited: 9, api_key_banned: 81 });
    const remaining = replies
      .filter((reply) => reply.status === 200)
      .map((reply) => reply.remaining);
    expect(new Set(remaining)).toEqual(new Set(Array.from({ length: 60 }, (_, n) => String(n))));
  });

  it("move orders exactly when a complete races a cancel, round after round", async () => {
    const key = await createKey("business");
    const post = async (path: string, body?: object) => {
      const response = await fetch(`${local.server.origin}/v1${path}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
        body: body && JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as { id: number } };
    };
    for (let round = 0; round < 20; round++) {
      const pet = await post("/pets", { name: `Race ${round}`, categoryId: 1 });
      const order = await post("/store/orders", { petId: pet.body.id });
      expect(order.status).toBe(201);
      const moves = await Promise.all([
        post(`/store/orders/${order.body.id}/complete`),
        post(`/store/orders/${order.body.id}/cancel`),
      ]);
      expect(moves.map((move) => move.status).sort()).toEqual([200, 409]);
    }
    expect(local.server.output()).not.toMatch(STRANDED);
  });

  it("get 401 from the first request sent after a revocation, while the key is flooded", async () => {
    const key = await createKey("business");
    let revokedAt = Number.POSITIVE_INFINITY;
    const replies: Reply[] = [];
    const flood = async () => {
      const stopAt = performance.now() + 60_000;
      while (performance.now() < stopAt) {
        const reply = await listPets(key);
        replies.push(reply);
        if (reply.startedAt > revokedAt) return;
      }
    };
    const connections = Promise.all(Array.from({ length: 16 }, flood));
    while (replies.length < 100) await sleep(20);
    const revokeSentAt = performance.now();
    const revoked = await local.sandbox.key("revoke", key);
    expect(revoked.code).toBe(0);
    revokedAt = performance.now();
    await connections;
    const before = replies.filter((reply) => reply.answeredAt < revokeSentAt);
    expect(before.length).toBeGreaterThanOrEqual(100);
    const after = replies.filter((reply) => reply.startedAt > revokedAt);
    expect(tally(before)).toEqual({ 200: before.length });
    expect(after).toHaveLength(16);
    expect(tally(after)).toEqual({ 401: 16 });
    expect(local.server.output()).not.toMatch(STRANDED);
  });
});
