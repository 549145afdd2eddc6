import { Hono } from "hono";
import { RegExpRouter } from "hono/router/reg-exp-router";
import { buildServices } from "../../../src/services.ts";
import { floors } from "./floors.ts";

export { WebhookEndpoint } from "../../../src/deliveries/webhook-endpoint.ts";
// The real Worker's configuration serves this one too (same bindings,
// variables and static-assets routing), so its Durable Object classes must
// be here; only the webhook endpoints' object is called.
export { RateLimiter } from "../../../src/rate-limit/rate-limiter.ts";

/**
 * The bench's floor: a bare Worker answering the API's paths with each
 * endpoint's storage calls and nothing else (floors.ts). It routes with
 * Hono, as the chanfana template does: a Worker with more than one route
 * pays for routing. Its router is the one that matches the API's requests,
 * named rather than left to Hono's choice, so that a route it cannot take
 * fails the floor instead of quietly moving it to a slower router.
 */
const app = new Hono<{ Bindings: Env }>({ router: new RegExpRouter() });
for (const [route, floor] of Object.entries(floors)) {
  const [method = "", path = ""] = route.split(" ");
  app.on(method, path, (c) => floor(c, buildServices(c.env)));
}

export default app;
