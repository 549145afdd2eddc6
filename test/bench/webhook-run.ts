import { writeFile } from "node:fs/promises";
import path from "node:path";
import { type LocalServer, makeSandbox, type Sandbox, startServer } from "../node/cli.ts";
import { type ReceivedRequest, type Receiver, startReceiver } from "../receiver/receiver.ts";
import { median } from "./report.ts";
import { workerUse } from "./workerd-usage.ts";

/*
 * Webhooks under load, black-box, through a real `npm start` (its queue,
 * its endpoints' objects, the contract's 10 s timeout) and a receiver of
 * the bench's own on a random port. One account makes animals; another
 * holds 10 endpoints (answering at once, or hanging); a third holds one
 * healthy endpoint, whose every delivery should arrive within 2 s of its
 * change. Every endpoint asks for `pet.*`, which every account sees.
 */

/** The contract: a healthy endpoint gets each event within this of its change. */
const WITHIN_MS = 2_000;
const NEIGHBOURS = 10;
const BURST = { animals: 150, spanMs: 5_000 };
const BACKLOG = 600;
/** Animals made for the delivery rate, each delivered to every one of the 10 endpoints. */
const RATE_ANIMALS = 200;
/** Parallel creates when animals are made as fast as the server takes them. */
const CREATORS = 16;
/** How long any scenario may take to deliver what it expects. */
const DRAIN_MS = 120_000;

type Answer = "ok" | "hang";

export interface Bench {
  server: LocalServer;
  receiver: Receiver;
  keys: { maker: string; neighbour: string; healthy: string };
}

async function adminKey(sandbox: Sandbox, server: LocalServer, account: string): Promise<string> {
  const response = await fetch(`${server.origin}/admin/keys`, {
    method: "POST",
    headers: { Authorization: `Bearer ${sandbox.adminToken}`, "Content-Type": "application/json" },
    body: JSON.stringify({ account, plan: "enterprise", perMinute: 1_000_000, perDay: 1_000_000 }),
  });
  const made = (await response.json()) as { key?: string };
  if (response.status !== 201 || !made.key) throw new Error(`no key for ${account}`);
  return made.key;
}

async function call(bench: Bench, key: string, method: string, route: string, json?: unknown) {
  const response = await fetch(`${bench.server.origin}/v1${route}`, {
    method,
    headers: {
      Authorization: `Bearer ${key}`,
      ...(json === undefined ? {} : { "Content-Type": "application/json" }),
    },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${route}: ${response.status} ${text}`);
  return text === "" ? { id: 0 } : (JSON.parse(text) as { id: number });
}

/** Registers endpoints of one account at the receiver, answering as `answer` says. */
async function endpoints(bench: Bench, key: string, answer: Answer, names: string[]) {
  const ids: number[] = [];
  for (const name of names) {
    const url = `${bench.receiver.url}/${answer}/${name}`;
    ids.push((await call(bench, key, "POST", "/webhooks", { url, types: ["pet.*"] })).id);
  }
  return {
    ids,
    remove: async () => {
      for (const id of ids) await call(bench, key, "DELETE", `/webhooks/${id}`);
    },
  };
}

async function received(bench: Bench, name: string): Promise<ReceivedRequest[]> {
  const response = await fetch(`${bench.receiver.url}/received/${name}`);
  return (await response.json()) as ReceivedRequest[];
}

/** Each name's requests, once every name has `count` or the drain time is up. */
async function whenReceived(bench: Bench, names: string[], count: number) {
  const deadline = Date.now() + DRAIN_MS;
  for (;;) {
    const all = await Promise.all(names.map((name) => received(bench, name)));
    if (all.every((requests) => requests.length >= count) || Date.now() > deadline) return all;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Makes `count` animals, spread evenly over `spanMs`, or as fast as the server takes them (0). */
async function makeAnimals(bench: Bench, count: number, spanMs: number, label: string) {
  const startedAt = Date.now();
  const ids: number[] = new Array(count).fill(0);
  let next = 0;
  const make = async (i: number) => {
    const at = startedAt + (spanMs * i) / count;
    if (at > Date.now()) await new Promise((resolve) => setTimeout(resolve, at - Date.now()));
    const body = { name: `${label} ${i}`, categoryId: 1 };
    ids[i] = (await call(bench, bench.keys.maker, "POST", "/pets", body)).id;
  };
  const creator = async () => {
    for (let i = next++; i < count; i = next++) await make(i);
  };
  await Promise.all(Array.from({ length: spanMs > 0 ? count : CREATORS }, creator));
  return { ids, startedAt, finishedAt: Date.now() };
}

interface Arrival {
  /** When the request arrived after its change, in milliseconds. */
  latencyMs: number;
  receivedAt: number;
}

/** Each animal's pet.created delivery among the requests, by the animal's id. */
function arrivals(requests: ReceivedRequest[]): Map<number, Arrival> {
  const found = new Map<number, Arrival>();
  for (const request of requests) {
    const event = JSON.parse(request.body) as {
      type: string;
      createdAt: string;
      data: { id: number };
    };
    if (event.type !== "pet.created" || found.has(event.data.id)) continue;
    const latencyMs = request.receivedAt - Date.parse(event.createdAt);
    found.set(event.data.id, { latencyMs, receivedAt: request.receivedAt });
  }
  return found;
}

/** The animals' delivery latencies (Infinity for one that never arrived) and their summary. */
function latencies(requests: ReceivedRequest[], ids: number[]) {
  const found = arrivals(requests);
  const allMs = ids.map((id) => found.get(id)?.latencyMs ?? Number.POSITIVE_INFINITY);
  return {
    delivered: allMs.filter(Number.isFinite).length,
    withinContract: allMs.filter((ms) => ms < WITHIN_MS).length,
    medianMs: median(allMs),
    maxMs: Math.max(...allMs),
    allMs,
  };
}

/**
 * 150 animals in 5 s while the 10 neighbours `answer`: the healthy
 * endpoint's latencies. A run of its own takes a `label` of its own.
 */
export async function burst(bench: Bench, answer: Answer, label = "burst") {
  const names = Array.from({ length: NEIGHBOURS }, (_, i) => `${label}-${answer}-${i}`);
  const healthyName = `${label}-healthy-${answer}`;
  const neighbours = await endpoints(bench, bench.keys.neighbour, answer, names);
  const healthy = await endpoints(bench, bench.keys.healthy, "ok", [healthyName]);
  const made = await makeAnimals(bench, BURST.animals, BURST.spanMs, `Burst ${answer}`);
  const [requests = []] = await whenReceived(bench, [healthyName], BURST.animals);
  await Promise.all([neighbours.remove(), healthy.remove()]);
  return { madeInMs: made.finishedAt - made.startedAt, ...latencies(requests, made.ids) };
}

/** 600 animals as fast as the server takes them, 10 answering neighbours: the healthy endpoint's first and last. */
async function backlog(bench: Bench) {
  const names = Array.from({ length: NEIGHBOURS }, (_, i) => `backlog-${i}`);
  const neighbours = await endpoints(bench, bench.keys.neighbour, "ok", names);
  const healthy = await endpoints(bench, bench.keys.healthy, "ok", ["healthy-backlog"]);
  const made = await makeAnimals(bench, BACKLOG, 0, "Backlog");
  const [requests = []] = await whenReceived(bench, ["healthy-backlog"], BACKLOG);
  await Promise.all([neighbours.remove(), healthy.remove()]);
  const found = arrivals(requests);
  const times = made.ids.flatMap((id) => found.get(id)?.receivedAt ?? []);
  const first = made.ids.map((id) => found.get(id)).find((arrival) => arrival !== undefined);
  return {
    madeInMs: made.finishedAt - made.startedAt,
    firstDeliveryAfterItsChangeMs: first?.latencyMs ?? null,
    lastDeliveryAfterLastChangeMs: times.length > 0 ? Math.max(...times) - made.finishedAt : null,
    drainedAfterFirstChangeMs: times.length > 0 ? Math.max(...times) - made.startedAt : null,
    ...latencies(requests, made.ids),
  };
}

/**
 * 200 animals as fast as the server takes them, each to 10 answering
 * endpoints: deliveries a second. A run of its own takes a `label` of its
 * own, as the receiver keeps each name's requests.
 */
export async function deliveryRate(bench: Bench, label = "rate") {
  const names = Array.from({ length: NEIGHBOURS }, (_, i) => `${label}-${i}`);
  const neighbours = await endpoints(bench, bench.keys.neighbour, "ok", names);
  const cpuBefore = (await workerUse(bench.server.processGroup)).cpuSeconds;
  const made = await makeAnimals(bench, RATE_ANIMALS, 0, "Rate");
  const all = await whenReceived(bench, names, RATE_ANIMALS);
  const cpuSeconds = (await workerUse(bench.server.processGroup)).cpuSeconds - cpuBefore;
  await neighbours.remove();
  const times = all.flat().map((request) => request.receivedAt);
  const seconds = (Math.max(...times) - made.startedAt) / 1000;
  return {
    endpoints: NEIGHBOURS,
    animals: RATE_ANIMALS,
    deliveries: times.length,
    seconds,
    deliveriesPerSecond: Math.round(times.length / seconds),
    // The Worker's CPU for the creates and their deliveries, whatever else the machine runs.
    workerCpuMsPerDelivery: Math.round((cpuSeconds * 1000 * 100) / times.length) / 100,
  };
}

/** A fresh sandbox, its `npm start` and a receiver, with the three accounts' keys; stopped by `stop`. */
export async function openBench(log: (message: string) => void) {
  const sandbox = makeSandbox();
  log("npm start in a fresh sandbox");
  const server = await startServer(sandbox);
  const receiver = await startReceiver();
  const keys = {
    maker: await adminKey(sandbox, server, "maker@bench.test"),
    neighbour: await adminKey(sandbox, server, "neighbour@bench.test"),
    healthy: await adminKey(sandbox, server, "healthy@bench.test"),
  };
  const stop = async () => {
    await receiver.close();
    await server.stop();
    sandbox.remove();
  };
  return { bench: { server, receiver, keys }, sandboxDir: sandbox.dir, stop };
}

const ms = (value: number | null) =>
  value === null || !Number.isFinite(value) ? "never" : `${Math.round(value)} ms`;

type Latencies = ReturnType<typeof latencies>;

function burstLines(title: string, result: Latencies & { madeInMs: number }): string[] {
  return [
    `${title} (made in ${(result.madeInMs / 1000).toFixed(1)} s): ${result.withinContract}/${result.allMs.length} within 2 s, median ${ms(result.medianMs)}, max ${ms(result.maxMs)}`,
    `  all (ms): ${result.allMs.map((value) => (Number.isFinite(value) ? value : "never")).join(" ")}`,
  ];
}

/** The delivery rate alone, as `npm run bench` reports it after its table. */
export async function runDeliveryRate(log: (message: string) => void) {
  const { bench, stop } = await openBench(log);
  try {
    log(`delivery rate: ${RATE_ANIMALS} animals to ${NEIGHBOURS} endpoints`);
    const rate = await deliveryRate(bench);
    process.stdout.write(
      `\nwebhook deliveries through npm start, ${rate.endpoints} endpoints: ${rate.deliveries} in ${rate.seconds.toFixed(1)} s = ${rate.deliveriesPerSecond} deliveries/s (Worker CPU ${rate.workerCpuMsPerDelivery} ms a delivery)\n`,
    );
    return rate;
  } finally {
    await stop();
  }
}

/**
 * `npm run bench -- --webhooks`: the burst beside answering and beside
 * hanging neighbours, the backlog, and the delivery rate; printed, and
 * written to .bench/ as JSON. Fails when a healthy delivery took 2 s or more.
 */
export async function runWebhooks(benchDir: string, log: (message: string) => void) {
  const { bench, stop } = await openBench(log);
  try {
    log("burst beside 10 answering endpoints");
    const answering = await burst(bench, "ok");
    log("burst beside 10 hanging endpoints");
    const hanging = await burst(bench, "hang");
    log(`backlog of ${BACKLOG} animals`);
    const queued = await backlog(bench);
    log(`delivery rate: ${RATE_ANIMALS} animals to ${NEIGHBOURS} endpoints`);
    const rate = await deliveryRate(bench);
    const lines = [
      "",
      `webhooks through npm start; a healthy endpoint beside ${NEIGHBOURS} of another account, all for pet.*`,
      ...burstLines(
        `${BURST.animals} animals in ${BURST.spanMs / 1000} s, neighbours answering`,
        answering,
      ),
      ...burstLines(
        `${BURST.animals} animals in ${BURST.spanMs / 1000} s, neighbours hanging`,
        hanging,
      ),
      `backlog of ${BACKLOG} animals (made in ${(queued.madeInMs / 1000).toFixed(1)} s), neighbours answering: first delivery ${ms(queued.firstDeliveryAfterItsChangeMs)} after its change, last ${ms(queued.lastDeliveryAfterLastChangeMs)} after the last change (${ms(queued.drainedAfterFirstChangeMs)} after the first); median ${ms(queued.medianMs)}, max ${ms(queued.maxMs)}`,
      `delivery rate, ${rate.endpoints} endpoints: ${rate.deliveries} deliveries in ${rate.seconds.toFixed(1)} s = ${rate.deliveriesPerSecond} deliveries/s (Worker CPU ${rate.workerCpuMsPerDelivery} ms a delivery)`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
    const file = path.join(
      benchDir,
      `webhooks-${new Date().toISOString().replace(/[:.]/g, "-")}.json`,
    );
    await writeFile(file, JSON.stringify({ answering, hanging, backlog: queued, rate }, null, 2));
    process.stdout.write(`written to ${path.relative(process.cwd(), file)}\n`);
    const late = [answering, hanging].some((run) => run.withinContract < run.allMs.length);
    if (late) throw new Error("a healthy delivery took 2 s or more; see the lines above");
  } finally {
    await stop();
  }
}
