import { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../../src/env.ts";
import { handleError, handleNotFound } from "../../../src/errors.ts";
import { deprecationMarks } from "../../../src/middleware/deprecation.ts";
import { corsPreflight, responseChain } from "../../../src/middleware/response-chain.ts";
import { services } from "../../../src/middleware/services.ts";
import { petsDeprecations, petsRoutes } from "../../../src/pets/index.ts";
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
app.use("/v1/*", deprecationMarks(petsDeprecations));
app.route("/v1", petsRoutes());
app.notFound(handleNotFound);
app.onError(handleError);

export default app;
