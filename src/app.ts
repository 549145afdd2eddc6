import { OpenAPIHono } from "@hono/zod-openapi";
import { adminHandlers } from "./admin/admin.handlers.ts";
import { adminRoutes } from "./admin/admin.routes.ts";
import { requireAdminToken } from "./admin/admin-token.ts";
import { deprecationsIn } from "./api/deprecation.ts";
import { API_PATH, DASHBOARD_PATH, HEALTH_PATH, OPERATOR_PATH } from "./api/public-paths.ts";
import { categoryHandlers } from "./categories/categories.handlers.ts";
import type { AppEnv } from "./context.ts";
import { dashboardRoutes } from "./dashboard/index.ts";
import { handleError, handleNotFound } from "./errors.ts";
import { eventHandlers } from "./events/events.handlers.ts";
import { apiRequest } from "./middleware/api-request.ts";
import { responseChain } from "./middleware/response-chain.ts";
import { OPENAPI_PATH, openapiRoutes } from "./openapi/openapi-routes.tsx";
import { orderHandlers } from "./orders/orders.handlers.ts";
import { petHandlers } from "./pets/pets.handlers.ts";
import { photoFileRoutes } from "./photos/photo-files.ts";
import { petPhotoHandlers } from "./photos/photos.handlers.ts";
import { SectionRouter } from "./routes/app-router.ts";
import { apiRouter, operatorRouter } from "./routes/route-router.ts";
import { v1Routes } from "./routes/v1-routes.ts";
import { shelterHandlers } from "./shelters/shelters.handlers.ts";
import { rejectInvalid } from "./validation.ts";
import { webhookHandlers } from "./webhooks/webhooks.handlers.ts";

/**
 * The routes the app registers. The URL rules of the webhook bodies are the
 * strict production ones: the handlers check each environment's own rules,
 * and the schema's pattern is documentation only.
 */
const v1 = v1Routes({ allowLoopbackHttp: false });

/**
 * The whole Worker. Order matters: the response chain every reply leaves
 * through (it names the request, hands it the isolate's services, answers
 * CORS preflights with no key and no budget, and gives the 405s); the
 * public pages, the document and the photos (no key either); then on /v1
 * one straight path of plain calls (see middleware/api-request.ts) before
 * each route's own checks and its handler.
 */
export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: rejectInvalid,
    router: new SectionRouter(DASHBOARD_PATH),
  });
  app.use(responseChain(app));

  app.get(HEALTH_PATH, (c) => c.json({ status: "ok" }));
  app.route("/", openapiRoutes());
  app.route("/", photoFileRoutes());

  // The document under /v1 needs no key: its route answers before the key's chain, and any
  // other method ends here, as a 404 that the response chain turns into its 405. A route
  // registered first is cheaper than a condition every /v1 request would evaluate.
  app.all(OPENAPI_PATH, (c) => c.notFound());
  app.use(`${API_PATH}/*`, apiRequest(deprecationsIn(Object.values(v1))));
  app.route(API_PATH, apiRouter(v1.pets, petHandlers));
  app.route(API_PATH, apiRouter(v1.petPhotos, petPhotoHandlers));
  app.route(API_PATH, apiRouter(v1.categories, categoryHandlers));
  app.route(API_PATH, apiRouter(v1.shelters, shelterHandlers));
  app.route(API_PATH, apiRouter(v1.orders, orderHandlers));
  app.route(API_PATH, apiRouter(v1.events, eventHandlers));
  app.route(API_PATH, apiRouter(v1.webhooks, webhookHandlers));

  app.use(`${OPERATOR_PATH}/*`, requireAdminToken());
  app.route(OPERATOR_PATH, operatorRouter(adminRoutes, adminHandlers));
  app.route(DASHBOARD_PATH, dashboardRoutes());

  app.notFound(handleNotFound);
  app.onError(handleError);
  return app;
}
