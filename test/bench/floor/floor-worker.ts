import { DurableObject } from "cloudflare:workers";
import { Hono } from "hono";
import { floorComplete, floorCreate, floorPlace, floorRead } from "./floor-orders.ts";

interface FloorEnv {
  DB: D1Database;
  COUNTER: DurableObjectNamespace<FloorCounter>;
}

interface NewPetBody {
  name: string;
  categoryId: number;
  status?: "available" | "pending" | "sold";
}

const COUNT_KEY = "count";

/**
 * The least a rate limiter can do per request: count in memory, persist the
 * count without awaiting it (the output gate holds the reply until it is
 * durable), answer over RPC — as the real RateLimiter does.
 */
export class FloorCounter extends DurableObject<FloorEnv> {
  #count = 0;

  constructor(ctx: DurableObjectState, env: FloorEnv) {
    super(ctx, env);
    void ctx.blockConcurrencyWhile(async () => {
      this.#count = (await ctx.storage.get<number>(COUNT_KEY)) ?? 0;
    });
  }

  hit(): number {
    this.#count += 1;
    void this.ctx.storage.put(COUNT_KEY, this.#count);
    return this.#count;
  }
}

/** One object for all bench traffic, like the one Durable Object per API key. */
function hitCounter(env: FloorEnv): Promise<number> {
  return env.COUNTER.get(env.COUNTER.idFromName("bench")).hit();
}

const app = new Hono<{ Bindings: FloorEnv }>();

app.get("/static", (c) => c.json({ id: 1, name: "Rex", categoryId: 1, status: "available" }));

/** listPets' limiter call and query. */
app.get("/floor/read", async (c) => {
  await hitCounter(c.env);
  return c.json((await floorRead(c.env.DB)).pets);
});

/** createPet's limiter call and batch: the insert, its event, the settlement, the events probe. */
app.post("/floor/create", async (c) => {
  await hitCounter(c.env);
  const outcome = await floorCreate(c.env.DB, await c.req.json<NewPetBody>(), Date.now());
  return c.json(outcome.kind === "made" ? outcome.body : { error: outcome.kind }, 201);
});

/** placeOrder's limiter call and batch; 201 only when the order was placed, so a broken floor shows. */
app.post("/floor/orders", async (c) => {
  await hitCounter(c.env);
  const { petId } = await c.req.json<{ petId: number }>();
  const outcome = await floorPlace(c.env.DB, petId, Date.now());
  return outcome.kind === "made" ? c.json(outcome.body, 201) : c.json({ error: "not placed" }, 409);
});

/** completeOrder's limiter call and batch; 200 only when the order moved. */
app.post("/floor/orders/:orderId/complete", async (c) => {
  await hitCounter(c.env);
  const outcome = await floorComplete(c.env.DB, Number(c.req.param("orderId")), Date.now());
  return outcome.kind === "moved"
    ? c.json(outcome.order, 200)
    : c.json({ error: "not completed" }, 409);
});

export default app;
