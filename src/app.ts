import { OpenAPIHono } from "@hono/zod-openapi";
import { adminHandlers } from "./admin/admin.handlers.ts";
import { adminRoutes } from "./admin/admin.routes.ts";
import { requireAdminToken } from "./admin/admin-token.ts";
import { deprecationsIn } from "./api/deprecation.ts";
import {
  API_PATH,
  DASHBOARD_PATH,
  DOCS_PATH,
  DOCUMENT_PATH,
  HEALTH_PATH,
  OPERATOR_PATH,
  PHOTOS_PATH,
} from "./api/public-paths.ts";
import { categoryHandlers } from "./categories/categories.handlers.ts";
import type { AppEnv } from "./context.ts";
import { dashboardRoutes } from "./dashboard/index.ts";
import { handleError, handleNotFound } from "./errors.ts";
import { eventHandlers } from "./events/events.handlers.ts";
import { authenticate, requireKey } from "./middleware/authenticate.ts";
import { deprecationMarks } from "./middleware/deprecation.ts";
import { methodNotAllowed } from "./middleware/method-not-allowed.ts";
import { rateLimit } from "./middleware/rate-limit.ts";
import { readConsistency } from "./middleware/read-consistency.ts";
import {
  corsPreflight,
  noSniffing,
  requestIdentity,
  responseChain,
} from "./middleware/response-chain.ts";
import { services } from "./middleware/services.ts";
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
 * through, the request's id and nosniff, the request's services, CORS
 * preflights (no key, no budget); the public pages, the document and the
 * photos (no key either); then on /v1
 * who is calling, their budget (429), the 401 for anyone without a
 * working key, the request's D1 session (a malformed Consistency-Token is a
 * 400); then the routes. A 405 is given where a path's routes serve
 * other methods, read from the routes themselves, on the API's paths only:
 * the dashboard's unknown pages stay pages.
 */
export function createApp(): OpenAPIHono<AppEnv> {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: rejectInvalid,
    router: new SectionRouter(DASHBOARD_PATH),
  });
  app.use(responseChain(), requestIdentity(), noSniffing(), services(), corsPreflight(app));
  const allowedMethods = methodNotAllowed(app);
  const everyPath = [
    `${API_PATH}/*`,
    `${OPERATOR_PATH}/*`,
    HEALTH_PATH,
    "/",
    DOCS_PATH,
    DOCUMENT_PATH,
    `${PHOTOS_PATH}/*`,
  ];
  for (const path of everyPath) {
    app.use(path, allowedMethods);
  }

  app.get(HEALTH_PATH, (c) => c.json({ status: "ok" }));
  app.route("/", openapiRoutes());
  app.route("/", photoFileRoutes());

  // The document under /v1 needs no key: its route answers before the key's chain, and any
  // other method ends here, as a 404 that the 405 above turns into its answer. A route
  // registered first is cheaper than a condition every /v1 request would evaluate.
  app.all(OPENAPI_PATH, (c) => c.notFound());
  app.use(
    `${API_PATH}/*`,
    deprecationMarks(deprecationsIn(Object.values(v1))),
    authenticate(),
    rateLimit(),
    requireKey(),
    readConsistency(),
  );
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
