import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReceivedRequest, type Receiver, startReceiver } from "../receiver/receiver.ts";
import { lastLine, serveForFile } from "./cli.ts";

/*
 * A real `npm start` under load, of its own: under a flood, a command's
 * 3-second look for the local Worker would fail in the files sharing one.
 * The tests here run one after another, so neither load disturbs the other.
 */
const local = serveForFile();

// A busy key's concurrent requests share Durable Object calls where the
// runtime lets one request await another's (as under `npm start` and when
// deployed; not in Vitest's Workers runtime), so they are tried here with
// real parallel HTTP requests, as a client sends them.

async function keyOnPlan(plan: string): Promise<string> {
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

/** The UTC minute, as the key's minute window counts it. */
const minuteNow = () => Math.floor(Date.now() / 60_000);

describe("a busy key's concurrent requests", () => {
  it("are counted exactly: a Free key admits 60 of 150 parallel requests", async () => {
    // A burst that straddles the end of a minute is counted in two windows: then it is
    // sent again, with a new key, rather than waiting for a fresh minute every time.
    let replies: Reply[];
    let minute: number;
    do {
      const key = await keyOnPlan("free");
      minute = minuteNow();
      replies = await Promise.all(Array.from({ length: 150 }, () => listPets(key)));
    } while (minuteNow() !== minute);
    expect(tally(replies)).toEqual({ 200: 60, rate_limited: 9, api_key_banned: 81 });
    const remaining = replies
      .filter((reply) => reply.status === 200)
      .map((reply) => reply.remaining);
    expect(new Set(remaining)).toEqual(new Set(Array.from({ length: 60 }, (_, n) => String(n))));
  });

  it("move orders exactly when a complete races a cancel, round after round", async () => {
    const key = await keyOnPlan("business");
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
    const key = await keyOnPlan("business");
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

/*
 * One account's broken endpoints must not delay another's: against a real
 * `npm start` (the real queue and the contract's 10 s timeout), account X
 * registers 10 endpoints that never answer, account Y one that answers at
 * once, both for `pet.*`; then a steady stream of changes. Every healthy
 * delivery must arrive within 2 s of its change.
 */
let receiver: Receiver;

const HANGING = 10;
const CHANGES = 20;
const CHANGE_EVERY_MS = 250;
const WITHIN_MS = 2_000;

beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver?.close();
});

async function businessKeyOf(account: string): Promise<string> {
  const result = await local.sandbox.key("create", "--account", account, "--plan", "business");
  expect(result.code, result.stderr).toBe(0);
  return lastLine(result.stdout);
}

async function call(key: string, method: string, path: string, json?: unknown) {
  const response = await fetch(`${local.server.origin}/v1${path}`, {
    method,
    headers: {
      Authorization: `Bearer ${key}`,
      ...(json === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await response.text();
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) };
}

async function register(key: string, path: string): Promise<number> {
  const created = await call(key, "POST", "/webhooks", {
    url: `${receiver.url}${path}`,
    types: ["pet.*"],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return (created.body as { id: number }).id;
}

async function receivedBy(name: string): Promise<ReceivedRequest[]> {
  const response = await fetch(`${receiver.url}/received/${name}`);
  return (await response.json()) as ReceivedRequest[];
}

describe("isolation between endpoints", () => {
  it("a healthy endpoint gets each event within 2 s of its change while 10 endpoints of another account hang", async () => {
    const x = await businessKeyOf("hanging@example.com");
    const y = await businessKeyOf("healthy@example.com");
    const hanging = await Promise.all(
      Array.from({ length: HANGING }, (_, i) => register(x, `/hang/x-${i}`)),
    );
    const healthy = await register(y, "/ok/healthy");

    const pets: { id: number }[] = [];
    for (let i = 0; i < CHANGES; i++) {
      const created = await call(i % 2 === 0 ? x : y, "POST", "/pets", {
        name: `Stream ${i}`,
        categoryId: 1,
      });
      expect(created.status).toBe(201);
      pets.push(created.body as { id: number });
      await sleep(CHANGE_EVERY_MS);
    }

    const deadline = Date.now() + 15_000;
    let requests = await receivedBy("healthy");
    while (requests.length < CHANGES && Date.now() < deadline) {
      await sleep(100);
      requests = await receivedBy("healthy");
    }
    const latencies = pets.map((pet) => {
      const request = requests.find(
        (candidate) => (JSON.parse(candidate.body) as { data: { id: number } }).data.id === pet.id,
      );
      if (!request) return Number.POSITIVE_INFINITY;
      const event = JSON.parse(request.body) as { createdAt: string };
      return request.receivedAt - Date.parse(event.createdAt);
    });
    console.log(
      `healthy endpoint, ${HANGING} hanging beside it: latencies (ms) ${latencies.join(", ")}`,
    );
    expect(requests).toHaveLength(CHANGES);
    for (const latency of latencies) expect(latency).toBeLessThan(WITHIN_MS);

    for (const id of [...hanging, healthy]) {
      const deleted = await call(id === healthy ? y : x, "DELETE", `/webhooks/${id}`);
      expect(deleted.status).toBe(204);
    }
  }, 120_000);
});
