import autocannon from "autocannon";
import { type Body, encoded, type Flow, type FlowContext, type Method } from "./flows.ts";
import { waitUntilIdle, workerUse } from "./workerd-usage.ts";

/** One request of a target whose every request differs (the mix). */
export interface VariedRequest {
  method: Method;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** The mix: a whole different request each call, continuing across loads. */
export interface Mix {
  next: () => VariedRequest;
  /** What its requests may answer. */
  statuses: number[];
}

/** One load of the bench: what is sent, to which server, and what it is held to. */
export interface Target {
  id: string;
  label: string;
  /** The ids of the targets this endpoint is held to, each loaded right beside it; floors have none. */
  floors?: string[];
  /** Set on the targets others are held to. */
  isFloor?: boolean;
  /** Loaded in this many rounds at most (a row of the other tier); every round without. */
  rounds?: number;
  /** At most this many connections, whatever the run's. */
  connections?: number;
  origin: string;
  /**
   * The process group of the server it loads: the CPU and memory of that
   * server's Worker are read around each load, after it has gone idle.
   */
  processGroup?: number;
  /** Sent with every request (the key); a body's JSON type is added to its request. */
  headers?: Record<string, string>;
  /** What each unit of load sends: one request, or several in turn. */
  flow?: Flow;
  /** Or, instead, the mix. */
  mix?: Mix;
  /** Undoes what a load left half done, after each (see BenchRow.tidy). */
  tidy?: () => Promise<void>;
}

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
  /** Stop after this many requests instead of after the duration. */
  requests?: number;
}

/** The statuses that count as success: each step's, or the mix's. */
const expectedStatuses = (target: Target): number[] =>
  target.flow?.steps.map((step) => step.expectStatus) ?? target.mix?.statuses ?? [];

export interface Sample {
  target: string;
  round: number;
  /** On a floor's sample from a paired round: the endpoint it was loaded beside. */
  besideEndpoint?: string;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  unexpected: number;
  errors: number;
  timeouts: number;
  /** The server's Worker: its CPU per answered request over the load, and its memory after. */
  cpuMsPerRequest?: number;
  residentMiB?: number;
}

/** A step's request as sent: the target's headers, and its body with that body's Content-Type. */
function sent(target: Target, { path, body }: { path: string; body?: Body }) {
  if (body === undefined) return { path, headers: { ...target.headers } };
  const { contentType, payload } = encoded(body);
  return {
    path,
    headers: { ...target.headers, "Content-Type": contentType },
    body: typeof payload === "string" ? payload : Buffer.from(payload),
  };
}

/** A flow's requests for autocannon: each step built from the connection's context, in turn. */
function flowRequests(target: Target, flow: Flow): autocannon.Request[] {
  return flow.steps.map((step) => ({
    method: step.method,
    setupRequest: (request: autocannon.Request, context: object) => ({
      ...request,
      ...sent(target, step.request(context as FlowContext)),
    }),
    ...(step.read
      ? {
          onResponse: (_status: number, body: string, context: object) =>
            step.read?.(body, context as FlowContext),
        }
      : {}),
  }));
}

/** One fixed-concurrency, fixed-duration autocannon run against one target. */
export async function load(target: Target, settings: LoadSettings): Promise<autocannon.Result> {
  const connections = Math.min(settings.connections, target.connections ?? Infinity);
  const common = {
    url: target.origin,
    connections,
    duration: settings.durationSeconds,
    ...(settings.requests === undefined ? {} : { amount: settings.requests }),
    timeout: 10,
  };
  const { flow, mix } = target;
  if (mix) {
    const request: autocannon.Request = {
      setupRequest: (req: autocannon.Request) => ({ ...req, body: undefined, ...mix.next() }),
    };
    return autocannon({ ...common, requests: [request] });
  }
  if (!flow) throw new Error(`${target.label}: neither a flow nor a mix`);
  const maxOverallRequests = flow.maxRequests?.(connections);
  if (maxOverallRequests !== undefined && maxOverallRequests < flow.steps.length) {
    throw new Error(`${target.label}: nothing left to work on; seed more`);
  }
  return autocannon({
    ...common,
    ...(maxOverallRequests === undefined ? {} : { maxOverallRequests }),
    requests: flowRequests(target, flow),
  });
}

/** Sends one request and fails unless it gets one of the expected statuses; returns the body. */
async function probeOne(target: Target, request: VariedRequest, expected: number[]) {
  const response = await fetch(`${target.origin}${request.path}`, {
    method: request.method,
    headers: request.headers,
    // A photo's bytes go as bytes: autocannon takes a Buffer, fetch a plain view of it.
    ...(request.body === undefined ? {} : { body: new Uint8Array(Buffer.from(request.body)) }),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (!expected.includes(response.status)) {
    throw new Error(
      `${target.label}: ${request.method} ${request.path} expected ${expected.join(" or ")}, got ${response.status}: ${text.slice(0, 300)}`,
    );
  }
  return text;
}

/** Sends one unit of the target (a flow: each step), before load, so a wrong setup fails loudly. */
export async function probe(target: Target): Promise<void> {
  if (target.mix) {
    await probeOne(target, target.mix.next(), target.mix.statuses);
    return;
  }
  const context: FlowContext = {};
  for (const step of target.flow?.steps ?? []) {
    const request = { method: step.method, ...sent(target, step.request(context)) };
    step.read?.(await probeOne(target, request, [step.expectStatus]), context);
  }
}

/** Waits until the target's server is idle, when it is metered, then tidies after the target. */
export async function settle(target: Target): Promise<void> {
  if (target.processGroup !== undefined) await waitUntilIdle(target.processGroup);
  await target.tidy?.();
}

/** A load only to warm the server and the connections up: nothing is read, everything settled. */
export async function warmUp(target: Target, settings: LoadSettings): Promise<void> {
  await load(target, settings);
  await settle(target);
}

/**
 * Loads the target once and reports it; with a process group, also the CPU
 * its server's Worker spent per answered request, counted from idle before
 * the load to idle after it (so the work a request leaves running, such as
 * a delivery, is the request's), and that Worker's memory then.
 */
export async function measure(
  target: Target,
  settings: LoadSettings,
  round: number,
): Promise<Sample> {
  const group = target.processGroup;
  if (group !== undefined) await waitUntilIdle(group);
  const before = group === undefined ? undefined : await workerUse(group);
  const result = await load(target, settings);
  if (group !== undefined) await waitUntilIdle(group);
  const after = group === undefined ? undefined : await workerUse(group);
  await settle(target);
  // Only the expected statuses count as successes (a flow's: each step's); anything else is reported.
  const expected = new Set(expectedStatuses(target).map(String));
  const byStatus = Object.entries(result.statusCodeStats ?? {});
  const count = (entries: typeof byStatus) =>
    entries.reduce((sum, [, stats]) => sum + (stats.count ?? 0), 0);
  const responses = count(byStatus);
  const admitted = count(byStatus.filter(([status]) => expected.has(status)));
  return {
    target: target.id,
    round,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: responses,
    unexpected: responses - admitted,
    errors: result.errors,
    timeouts: result.timeouts,
    ...(before && after && responses > 0
      ? {
          cpuMsPerRequest: ((after.cpuSeconds - before.cpuSeconds) * 1000) / responses,
          residentMiB: after.residentMiB,
        }
      : {}),
  };
}
