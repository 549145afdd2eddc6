import autocannon from "autocannon";
import { newPetBody, SEED_PETS } from "./seed.ts";

/** The DO + D1 floors of the default run, and the validation + D1 floors of the scale run. */
export type FloorName =
  | "read"
  | "create"
  | "no-auth-list"
  | "no-auth-get"
  | "no-auth-create"
  | "no-auth-mix";

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
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  unexpected: number;
  errors: number;
  timeouts: number;
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
  ];
}

/** One fixed-concurrency, fixed-duration autocannon run against one target. */
export async function load(target: Target, settings: LoadSettings): Promise<autocannon.Result> {
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
  return autocannon({
    url: target.origin,
    connections: settings.connections,
    duration: settings.durationSeconds,
    ...(settings.requests === undefined ? {} : { amount: settings.requests }),
    requests: [request],
    timeout: 10,
  });
}

/** Checks the target answers as expected once, before load, so a wrong setup fails loudly. */
export async function probe(target: Target): Promise<void> {
  const response = await fetch(`${target.origin}${target.path}`, {
    method: target.method,
    ...(target.headers ? { headers: target.headers } : {}),
    ...(target.body ? { body: target.body } : {}),
    signal: AbortSignal.timeout(10_000),
  });
  const text = await response.text();
  if (!expectedStatuses(target).includes(response.status)) {
    throw new Error(
      `${target.label}: expected ${target.expectStatus}, got ${response.status}: ${text.slice(0, 300)}`,
    );
  }
}

export async function measure(
  target: Target,
  settings: LoadSettings,
  round: number,
): Promise<Sample> {
  const result = await load(target, settings);
  // Only the expected status counts as a success; anything else is reported.
  const byStatus = Object.entries(result.statusCodeStats ?? {});
  const responses = byStatus.reduce((sum, [, stats]) => sum + (stats.count ?? 0), 0);
  const statuses = expectedStatuses(target);
  const expected = byStatus
    .filter(([status]) => statuses.includes(Number(status)))
    .reduce((sum, [, stats]) => sum + (stats.count ?? 0), 0);
  return {
    target: target.id,
    round,
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests: responses,
    unexpected: responses - expected,
    errors: result.errors,
    timeouts: result.timeouts,
  };
}
