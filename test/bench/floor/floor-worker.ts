import { DurableObject } from "cloudflare:workers";
import { Hono } from "hono";
import { completeBatch, createBatch, placeBatch } from "./floor-orders.ts";

interface FloorEnv {
  DB: D1Database;
  COUNTER: DurableObjectNamespace<FloorCounter>;
}

interface PetRow {
  id: number;
  name: string;
  categoryId: number;
  status: string;
}

interface NewPetBody {
  name: string;
  categoryId: number;
  status?: string;
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

const PET_COLUMNS = "id, name, category_id AS categoryId, status";

const app = new Hono<{ Bindings: FloorEnv }>();

app.get("/static", (c) => c.json({ id: 1, name: "Rex", categoryId: 1, status: "available" }));

app.get("/floor/read", async (c) => {
  await hitCounter(c.env);
  const { results } = await c.env.DB.prepare(
    `SELECT ${PET_COLUMNS} FROM pets ORDER BY id LIMIT 20`,
  ).all<PetRow>();
  return c.json(results);
});

/** createPet's limiter call and batch: the insert, its event, the settlement, the events probe. */
app.post("/floor/create", async (c) => {
  await hitCounter(c.env);
  const body = await c.req.json<NewPetBody>();
  const pet = { ...body, status: body.status ?? "available" };
  const [inserted] = await c.env.DB.batch<PetRow>(createBatch(c.env.DB, pet, Date.now()));
  return c.json(inserted?.results[0], 201);
});

/** placeOrder's limiter call and batch; 201 only when the order was placed, so a broken floor shows. */
app.post("/floor/orders", async (c) => {
  await hitCounter(c.env);
  const { petId } = await c.req.json<{ petId: number }>();
  const [, placed] = await c.env.DB.batch(placeBatch(c.env.DB, petId, Date.now()));
  const order = placed?.results[0];
  return order ? c.json(order, 201) : c.json({ error: "not placed" }, 409);
});

/** completeOrder's limiter call and batch; 200 only when the order moved. */
app.post("/floor/orders/:orderId/complete", async (c) => {
  await hitCounter(c.env);
  const orderId = Number(c.req.param("orderId"));
  const [, moved] = await c.env.DB.batch(completeBatch(c.env.DB, orderId, Date.now()));
  const order = moved?.results[0];
  return order ? c.json(order, 200) : c.json({ error: "not completed" }, 409);
});

export default app;
