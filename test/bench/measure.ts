import autocannon from "autocannon";
import { OrderWalk } from "./order-animals.ts";
import { newPetBody, SEED_PETS } from "./seed.ts";

/**
 * The DO + D1 floors of the default run; the validation + D1 floors of the
 * scale run, its mix from fewer keys that a mix from more is held to, and
 * its listings at the first table size that the same listings at a larger
 * size are held to.
 */
export type FloorName =
  | "read"
  | "create"
  | "order"
  | "no-auth-list"
  | "no-auth-get"
  | "no-auth-create"
  | "no-auth-mix"
  | "mix-fewer-keys"
  | `first-size-${string}`;

/** What one unit of a flow keeps between its requests (the order a first step placed, say). */
export type FlowContext = Record<string, unknown>;

export interface FlowStep {
  method: "GET" | "POST";
  expectStatus: number;
  /** This step's path, and body if any, from what the unit's earlier steps kept. */
  request(context: FlowContext): { path: string; body?: string };
  /** Keeps what later steps need from this step's response body. */
  read?(body: string, context: FlowContext): void;
}

/**
 * A target whose every unit is several requests in turn, each built from
 * the answer to the one before: an order placed, then completed.
 */
export interface Flow {
  steps: FlowStep[];
  /** Most requests one load may send, so a flow that uses things up cannot run out of them. */
  maxRequests(connections: number): number;
}

/** One request of a target whose every request differs (the mix). */
export interface VariedRequest {
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

export interface Target {
  id: string;
  label: string;
  /** Which floor this endpoint is compared with; floors themselves have none. */
  floor?: FloorName;
  /** Set on the floor targets: the floor they stand for. */
  isFloor?: FloorName | "static";
  origin: string;
  method: "GET" | "POST";
  path: string;
  /** The success status, or each one a mix of requests may answer. */
  expectStatus: number | number[];
  headers?: Record<string, string>;
  body?: string;
  /** A different path per request (e.g. walking through the seeded ids). */
  pathFor?: (n: number) => string;
  /** Several requests per unit instead of the one above, which is then its first. */
  flow?: Flow;
  /**
   * A whole different request each call, continuing across loads (the mix);
   * method, path, headers and body above are then only what `probe` sends.
   */
  nextRequest?: () => VariedRequest;
}

export interface LoadSettings {
  connections: number;
  durationSeconds: number;
  /** Stop after this many requests instead of after the duration. */
  requests?: number;
}

const expectedStatuses = (target: Target): number[] => [target.expectStatus].flat();

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
}

/** The id in a JSON body such as an Order; undefined when the answer was not one. */
function idOf(body: string): number | undefined {
  try {
    const id: unknown = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === "number" ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * An adoption: order the next seeded animal, then complete that order. Each
 * unit uses up one animal, so every target walks its own.
 */
function adoption(ordersPath: string): Flow {
  const walk = new OrderWalk();
  return {
    steps: [
      {
        method: "POST",
        expectStatus: 201,
        request: () => ({ path: ordersPath, body: JSON.stringify({ petId: walk.nextPetId() }) }),
        read: (body, context) => {
          context.orderId = idOf(body);
        },
      },
      {
        method: "POST",
        expectStatus: 200,
        request: (context) => ({ path: `${ordersPath}/${String(context.orderId)}/complete` }),
      },
    ],
    maxRequests: (connections) => walk.requestBudget(connections),
  };
}

export function buildTargets(floorOrigin: string, apiOrigin: string, key: string): Target[] {
  const auth = { Authorization: `Bearer ${key}` };
  const json = { "Content-Type": "application/json" };
  const createBody = newPetBody(0);
  return [
    {
      id: "floor-static",
      label: "floor: static JSON (Hono)",
      isFloor: "static",
      origin: floorOrigin,
      method: "GET",
      path: "/static",
      expectStatus: 200,
    },
    {
      id: "floor-read",
      label: "floor: DO call + D1 SELECT 20",
      isFloor: "read",
      origin: floorOrigin,
      method: "GET",
      path: "/floor/read",
      expectStatus: 200,
    },
    {
      id: "floor-create",
      label: "floor: DO call + D1 INSERT",
      isFloor: "create",
      origin: floorOrigin,
      method: "POST",
      path: "/floor/create",
      expectStatus: 201,
      headers: json,
      body: createBody,
    },
    {
      id: "floor-orders",
      label: "floor: order + complete, DO call + D1 batch each",
      isFloor: "order",
      origin: floorOrigin,
      method: "POST",
      path: "/floor/orders",
      expectStatus: 201,
      headers: json,
      flow: adoption("/floor/orders"),
    },
    {
      id: "list",
      label: "GET /v1/pets?limit=20",
      floor: "read",
      origin: apiOrigin,
      method: "GET",
      path: "/v1/pets?limit=20",
      expectStatus: 200,
      headers: auth,
    },
    {
      id: "list-status",
      label: "GET /v1/pets?status=available",
      floor: "read",
      origin: apiOrigin,
      method: "GET",
      path: "/v1/pets?status=available",
      expectStatus: 200,
      headers: auth,
    },
    {
      id: "create",
      label: "POST /v1/pets",
      floor: "create",
      origin: apiOrigin,
      method: "POST",
      path: "/v1/pets",
      expectStatus: 201,
      headers: { ...auth, ...json },
      body: createBody,
    },
    {
      id: "get",
      label: "GET /v1/pets/{id}",
      floor: "read",
      origin: apiOrigin,
      method: "GET",
      path: "/v1/pets/1",
      expectStatus: 200,
      headers: auth,
      pathFor: (n) => `/v1/pets/${(n % SEED_PETS) + 1}`,
    },
    {
      id: "orders",
      label: "POST /v1/store/orders + complete",
      floor: "order",
      origin: apiOrigin,
      method: "POST",
      path: "/v1/store/orders",
      expectStatus: 201,
      headers: { ...auth, ...json },
      flow: adoption("/v1/store/orders"),
    },
  ];
}

/** A flow's requests for autocannon: each step built from the connection's context, in turn. */
function flowRequests(
  flow: Flow,
  headers: Record<string, string> | undefined,
): autocannon.Request[] {
  return flow.steps.map((step) => ({
    method: step.method,
    ...(headers ? { headers } : {}),
    setupRequest: (request: autocannon.Request, context: object) => ({
      ...request,
      ...step.request(context as FlowContext),
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
  const common = {
    url: target.origin,
    connections: settings.connections,
    duration: settings.durationSeconds,
    ...(settings.requests === undefined ? {} : { amount: settings.requests }),
    timeout: 10,
  };
  if (target.flow) {
    const maxOverallRequests = target.flow.maxRequests(settings.connections);
    if (maxOverallRequests < target.flow.steps.length) {
      throw new Error(`${target.label}: nothing left to work on; seed more`);
    }
    return autocannon({
      ...common,
      maxOverallRequests,
      requests: flowRequests(target.flow, target.headers),
    });
  }
  let n = 0;
  const { pathFor, nextRequest } = target;
  const request: autocannon.Request = {
    method: target.method,
    path: target.path,
    ...(target.headers ? { headers: target.headers } : {}),
    ...(target.body ? { body: target.body } : {}),
    ...(pathFor
      ? { setupRequest: (req: autocannon.Request) => ({ ...req, path: pathFor(n++) }) }
      : {}),
    ...(nextRequest
      ? {
          setupRequest: (req: autocannon.Request) => ({
            ...req,
            body: undefined,
            ...nextRequest(),
          }),
        }
      : {}),
  };
  return autocannon({ ...common, requests: [request] });
}

/** Sends one request and fails unless it gets the expected status; returns the body. */
async function probeOne(
  target: Target,
  request: { method: string; path: string; body?: string | undefined },
  expected: number[],
): Promise<string> {
  const response = await fetch(`${target.origin}${request.path}`, {
    method: request.method,
    ...(target.headers ? { headers: target.headers } : {}),
    ...(request.body ? { body: request.body } : {}),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (!expected.includes(response.status)) {
    throw new Error(
      `${target.label}: expected ${expected.join(" or ")}, got ${response.status}: ${text.slice(0, 300)}`,
    );
  }
  return text;
}

/** Checks the target answers as expected once (a flow: each step), before load, so a wrong setup fails loudly. */
export async function probe(target: Target): Promise<void> {
  if (!target.flow) {
    await probeOne(target, target, expectedStatuses(target));
    return;
  }
  const context: FlowContext = {};
  for (const step of target.flow.steps) {
    const body = await probeOne(target, { method: step.method, ...step.request(context) }, [
      step.expectStatus,
    ]);
    step.read?.(body, context);
  }
}

export async function measure(
  target: Target,
  settings: LoadSettings,
  round: number,
): Promise<Sample> {
  const result = await load(target, settings);
  // Only the expected statuses count as successes (a flow's: each step's); anything else is reported.
  const expected = new Set(
    (target.flow?.steps.map((step) => step.expectStatus) ?? expectedStatuses(target)).map(String),
  );
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
  };
}
