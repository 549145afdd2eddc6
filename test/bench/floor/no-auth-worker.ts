import { OpenAPIHono } from "@hono/zod-openapi";
import { deprecationsIn } from "../../../src/api/deprecation.ts";
import { apiRouter } from "../../../src/api/route-router.ts";
import type { AppEnv } from "../../../src/context.ts";
import { handleError, handleNotFound } from "../../../src/errors.ts";
import { deprecationMarks } from "../../../src/middleware/deprecation.ts";
import { corsPreflight, responseChain } from "../../../src/middleware/response-chain.ts";
import { services } from "../../../src/middleware/services.ts";
import { petHandlers } from "../../../src/pets/pets.handlers.ts";
import { petRoutes } from "../../../src/pets/pets.routes.ts";
import { rejectInvalid } from "../../../src/validation.ts";

// The services middleware builds a limiter client, so its class must exist; nothing here calls it.
export { RateLimiter } from "../../../src/rate-limit/rate-limiter.ts";

/**
 * What a template with our stack and no auth answers: the real pets routes
 * behind the real app's middleware (the response chain, services, CORS
 * preflights, deprecation marks), composed as createApp() does but without
 * authenticate, rateLimit and requireKey. The gap between this and the real
 * Worker is what auth and limits cost a caller.
 */
const app = new OpenAPIHono<AppEnv>({ defaultHook: rejectInvalid });
app.use(responseChain(), services(), corsPreflight(app));
app.get("/health", (c) => c.json({ status: "ok" }));
app.use("/v1/*", deprecationMarks(deprecationsIn([petRoutes])));
app.route("/v1", apiRouter(petRoutes, petHandlers));
app.notFound(handleNotFound);
app.onError(handleError);

export default app;
