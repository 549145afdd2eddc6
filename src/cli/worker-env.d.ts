/**
 * Modules the CLI shares with the Worker (the OpenAPI document and the route
 * schemas it is built from) name the Worker's `Env` in types only. Its real
 * declaration, src/worker-configuration.d.ts, brings the Workers runtime types,
 * which clash with Node's; the CLI never touches a binding, so this stands in, with the
 * variables those shared modules read.
 */
interface Env {
  readonly [binding: string]: unknown;
  readonly GET_PET_DEPRECATED_AT: string;
  readonly GET_PET_SUNSET_AT: string;
}
