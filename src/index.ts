import { createApp } from "./app.ts";

export { RateLimiter } from "./rate-limit/rate-limiter.ts";

export default createApp() satisfies ExportedHandler<Env>;
