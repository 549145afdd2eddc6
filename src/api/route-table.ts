import type { RouteConfig } from "@hono/zod-openapi";
import type { Config } from "../config.ts";
import type { Scope } from "../scopes.ts";
import { idempotentOperation } from "./idempotency-key.ts";

/** A parameter in a documented path, `{petId}`; its name is the first group. */
export const PATH_PARAMETER = /\{([^}]+)\}/g;

/** How settled an operation is, stated as `x-stability` on it. */
type Stability = "stable" | "beta" | "experimental";

/** The operations the configuration holds a deprecation schedule for. */
export type ScheduledOperation = keyof Config["deprecations"];

/**
 * A deprecated operation's successor and documentation. Its dates are not
 * here: they are configuration, found by the operation's id, so a change of
 * schedule needs no code change.
 */
export interface Deprecation {
  /** What to use instead; `{name}` stands for that path parameter of the request. */
  successor: string;
  /** Where the deprecation is explained. */
  documentation: string;
}

/** The largest JSON body a route takes unless it states another. */
export const MAX_JSON_BODY_BYTES = 16 * 1024;

/** What the app does with a route beyond validating it, whatever the route serves. */
interface RouteTraits {
  /** The 404 message for a path identifier that is not valid: it names nothing, like an unknown one. */
  invalidIdMessage?: string;
  /** The largest body taken; without it, JSON bodies take 16 KiB and other bodies none. */
  maxBodyBytes?: number;
}

/**
 * A route as declared, without what its table's key and traits say: its
 * operation id is its key in the table, and its security and stability
 * are written by the document from the traits.
 */
type Declared = Omit<
  RouteConfig,
  "operationId" | "security" | "deprecated" | "x-stability" | "hide" | "middleware"
>;

/** A `/v1` operation: its method, path, schemas and responses, and what a key needs to call it. */
export type ApiRoute = Declared &
  RouteTraits & {
    scope: Scope;
    stability: Stability;
    deprecation?: Deprecation;
    /**
     * Takes an `Idempotency-Key`: the header and its sentence are documented,
     * and the handler's change gets the request's claim (see
     * idempotency/idempotent-request.ts).
     */
    idempotent?: true;
  };

/** An operator route: never in the public document, and behind the operator token instead of a key. */
export type OperatorRoute = Declared & RouteTraits;

/** A resource's routes, keyed by operation id. */
export type RouteTable<R extends OperatorRoute = ApiRoute> = Record<string, R>;

/** A route deprecated without a schedule in the configuration fails to compile, naming itself. */
type Scheduled<T> = {
  [K in keyof T]: T[K] extends { deprecation: Deprecation }
    ? K extends ScheduledOperation
      ? T[K]
      : { deprecation: `${K & string} has no deprecation schedule in the configuration` }
    : T[K];
};

/** Declares a resource's `/v1` routes: the one place each is written down. */
export function apiRoutes<T extends RouteTable>(table: T & Scheduled<T>): T {
  return table;
}

/** Declares the operator's routes. */
export function operatorRoutes<T extends RouteTable<OperatorRoute>>(table: T): T {
  return table;
}

/**
 * The operation a `/v1` route describes, as the OpenAPI registry takes it:
 * its key as its id, its scope as its security requirement, its stability
 * and whether it is deprecated written in, its Idempotency-Key when it
 * takes one, the app's other traits left out.
 */
export function operationOf(operationId: string, route: ApiRoute): RouteConfig {
  const { scope, stability, deprecation, invalidIdMessage, maxBodyBytes, idempotent, ...config } =
    route;
  return {
    ...(idempotent ? idempotentOperation(config) : config),
    operationId,
    "x-stability": stability,
    security: [{ bearerAuth: [scope] }],
    ...(deprecation ? { deprecated: true } : {}),
  };
}
