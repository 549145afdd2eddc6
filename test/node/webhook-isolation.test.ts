import { setTimeout as sleep } from "node:timers/promises";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ReceivedRequest, type Receiver, startReceiver } from "../receiver/receiver.ts";
import { lastLine, serveForFile } from "./cli.ts";

/*
 * One account's broken endpoints must not delay another's: against a real
 * `npm start` (the real queue and the contract's 10 s timeout), account X
 * registers 10 endpoints that never answer, account Y one that answers at
 * once, both for `pet.*`; then a steady stream of changes. Every healthy
 * delivery must arrive within 2 s of its change.
 */
const local = serveForFile();
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

async function createKey(account: string): Promise<string> {
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
    const x = await createKey("hanging@example.com");
    const y = await createKey("healthy@example.com");
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
