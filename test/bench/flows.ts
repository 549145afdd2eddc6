import type { Caller } from "./callers.ts";

/**
 * How a unit of load is written: the requests one unit sends, in turn, each
 * built from the answers before it. Free of any runtime's types: the Node
 * bench and the Worker tests both read it.
 */

export type Method = "GET" | "POST" | "PATCH" | "DELETE";

/** A request's body: JSON text, or the bytes of another media type (a photo). */
export type Body = string | { type: string; bytes: Uint8Array<ArrayBuffer> };

/** What a body is sent as: its Content-Type and its payload. */
export function encoded(body: Body): {
  contentType: string;
  payload: string | Uint8Array<ArrayBuffer>;
} {
  return typeof body === "string"
    ? { contentType: "application/json", payload: body }
    : { contentType: body.type, payload: body.bytes };
}

/** Sends one request as `caller` and answers with the status and the body's text. */
export type Send = (request: {
  caller: Caller;
  method: Method;
  path: string;
  body?: Body;
}) => Promise<{ status: number; body: string }>;

/** What one unit of a load keeps between its requests (the order a first step placed, say). */
export type FlowContext = Record<string, unknown>;

export interface FlowStep {
  method: Method;
  expectStatus: number;
  /** This step's path, and body if any, from what the unit's earlier steps kept. */
  request(context: FlowContext): { path: string; body?: Body };
  /** Keeps what later steps need from this step's response body. */
  read?(body: string, context: FlowContext): void;
}

/**
 * The requests of one unit of load, in turn: one for most rows; an adoption
 * is an order placed, then completed, the second built from the first's
 * answer. A load repeats units for its duration.
 */
export interface Flow {
  steps: FlowStep[];
  /** Most requests one load may send, when each unit uses something up; unbounded without. */
  maxRequests?(connections: number): number;
}

/** The same request every time. */
export function one(method: Method, path: string, expectStatus: number, body?: Body): Flow {
  const request = body === undefined ? { path } : { path, body };
  return { steps: [{ method, expectStatus, request: () => request }] };
}

/** One request per unit, walking through `ids` in turn; with `body`, each its own body. */
export function walk(
  method: Method,
  ids: readonly number[],
  pathOf: (id: number) => string,
  expectStatus = 200,
  body?: () => string,
): Flow {
  if (ids.length === 0) throw new Error(`nothing seeded for ${pathOf(0)}`);
  let n = 0;
  return {
    steps: [
      {
        method,
        expectStatus,
        request: () => {
          const path = pathOf(ids[n++ % ids.length] as number);
          return body === undefined ? { path } : { path, body: body() };
        },
      },
    ],
  };
}

/** The id in a JSON body such as an Order or a Photo; undefined when the answer was not one. */
function idOf(body: string): number | string | undefined {
  try {
    const id: unknown = (JSON.parse(body) as { id?: unknown }).id;
    return typeof id === "number" || typeof id === "string" ? id : undefined;
  } catch {
    return undefined;
  }
}

/** Makes something with the first request and keeps its id for the second, which acts on it. */
export function makeThen(
  make: { path: string; body: () => Body },
  then: { method: Method; expectStatus: number; path: (id: string) => string },
): FlowStep[] {
  return [
    {
      method: "POST",
      expectStatus: 201,
      request: () => ({ path: make.path, body: make.body() }),
      read: (body, context) => {
        context.id = idOf(body);
      },
    },
    {
      method: then.method,
      expectStatus: then.expectStatus,
      request: (context) => ({ path: then.path(String(context.id)) }),
    },
  ];
}
