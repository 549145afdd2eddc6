import { OpenAPIHono } from "@hono/zod-openapi";
import { adminRoutes } from "./admin/index.ts";
import { dashboardRoutes } from "./dashboard/index.ts";
import type { AppEnv } from "./env.ts";
import { handleError, handleNotFound } from "./errors.ts";
import { eventsRoutes } from "./events/index.ts";
import { authenticate, requireKey } from "./middleware/authenticate.ts";
import { deprecationMarks } from "./middleware/deprecation.ts";
import { methodNotAllowed } from "./middleware/method-not-allowed.ts";
import { rateLimit } from "./middleware/rate-limit.ts";
import { corsPreflight, responseChain } from "./middleware/response-chain.ts";
import { services } from "./middleware/services.ts";
import { openapiRoutes } from "./openapi/openapi-routes.tsx";
import { ordersRoutes } from "./orders/index.ts";
import { petsDeprecations, petsRoutes } from "./pets/index.ts";
import { rejectInvalid } from "./validation.ts";
import { webhooksRoutes } from "./webhooks/index.ts";

/**
 * The whole Worker. Order matters: the response chain every reply leaves
 * through, the request's services, CORS preflights (no key, no budget); then
 * on /v1 who is calling, their budget (429), the 401 for anyone without a
 * working key; then the routes.
 */
export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({ defaultHook: rejectInvalid });
  app.use(responseChain(), services(), corsPreflight(app));

  app.get("/health", (c) => c.json({ status: "ok" }));
  app.all("/health", methodNotAllowed(["GET", "HEAD"]));

  app.route("/", openapiRoutes());

  app.use("/v1/*", deprecationMarks(petsDeprecations), authenticate(), rateLimit(), requireKey());
  app.route("/v1", petsRoutes());
  app.route("/v1", ordersRoutes());
  app.route("/v1", eventsRoutes());
  app.route("/v1", webhooksRoutes());

  app.route("/admin", adminRoutes());
  app.route("/dashboard", dashboardRoutes());

  app.notFound(handleNotFound);
  app.onError(handleError);
  return app;
}
