import { beforeAll, describe, expect, it } from "vitest";
import { createPet, freshIp, RATE_LIMIT_HEADERS, UUID } from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { type OrderBody, placeOrder } from "../support/orders.ts";
import { type ApiRequestInit, api } from "../support/request.ts";

let key: string;
/** Animals still available, one for each reply that places an order. */
const available: number[] = [];
let placed: OrderBody;
let completed: OrderBody;

beforeAll(async () => {
  ({ key } = await seedKey());
  for (let i = 0; i < 4; i++) {
    available.push((await createPet(key, { name: `Headers ${i}`, categoryId: 7 })).id);
  }
  const pending = (await createPet(key, { name: "Placed", categoryId: 7 })).id;
  placed = await placeOrder(key, pending);
  const sold = (await createPet(key, { name: "Completed", categoryId: 7 })).id;
  const order = await placeOrder(key, sold);
  const res = await api(`/v1/store/orders/${order.id}/complete`, { method: "POST", key });
  completed = (await res.json()) as OrderBody;
});

/** One request of every kind of reply the store gives; each is made when the test runs. */
const REPLIES: [string, () => [string, ApiRequestInit], number][] = [
  ["list", () => ["/v1/store/orders?limit=1", { key }], 200],
  [
    "place",
    () => ["/v1/store/orders", { method: "POST", key, json: { petId: available.pop() } }],
    201,
  ],
  ["get", () => [`/v1/store/orders/${placed.id}`, { key }], 200],
  ["invalid_request", () => ["/v1/store/orders?status=sold", { key }], 400],
  ["no key", () => ["/v1/store/orders", { headers: { "CF-Connecting-IP": freshIp() } }], 401],
  ["not_found", () => ["/v1/store/orders/9007199254740991", { key }], 404],
  ["405", () => ["/v1/store/orders", { method: "PUT", key }], 405],
  [
    "pet_not_available",
    () => ["/v1/store/orders", { method: "POST", key, json: { petId: placed.petId } }],
    409,
  ],
  [
    "invalid_transition",
    () => [`/v1/store/orders/${completed.id}/cancel`, { method: "POST", key }],
    409,
  ],
  [
    "415",
    () => [
      "/v1/store/orders",
      { method: "POST", key, body: "{}", headers: { "Content-Type": "text/plain" } },
    ],
    415,
  ],
];

describe("headers on every reply of the store", () => {
  it.each(REPLIES)(
    "%s: request id, Cache-Control, nosniff, rate-limit headers and JSON",
    async (_, request, status) => {
      const [path, init] = request();
      const res = await api(path, init);
      await res.json();
      expect(res.status).toBe(status);
      expect(res.headers.get("X-Request-Id")).toMatch(UUID);
      // A read may be kept but must be revalidated; nothing else may be kept.
      const read = init.method === undefined && status === 200;
      expect(res.headers.get("Cache-Control")).toBe(read ? "private, no-cache" : "no-store");
      expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
      expect(res.headers.get("Content-Type")).toMatch(/^application\/json\b/);
      for (const name of RATE_LIMIT_HEADERS) expect(res.headers.get(name), name).toBeTruthy();
      expect(Number(res.headers.get("X-RateLimit-Remaining"))).toBeGreaterThanOrEqual(0);
    },
  );

  it("echoes an incoming cf-ray as X-Request-Id", async () => {
    const ray = `8f${crypto.randomUUID().slice(0, 14).replace("-", "")}-AMS`;
    const res = await api("/v1/store/orders", { key, headers: { "cf-ray": ray } });
    await res.json();
    expect(res.headers.get("X-Request-Id")).toBe(ray);
  });

  it("counts every store request against the key's budget", async () => {
    const remaining = async (init: ApiRequestInit & { path: string }) => {
      const res = await api(init.path, init);
      await res.json();
      return Number(res.headers.get("X-RateLimit-Remaining"));
    };
    const first = await remaining({ path: "/v1/store/orders", key });
    const second = await remaining({ path: `/v1/store/orders/${placed.id}`, key });
    const third = await remaining({
      path: `/v1/store/orders/${completed.id}/complete`,
      method: "POST",
      key,
    });
    expect([first - second, second - third]).toEqual([1, 1]);
  });
});
