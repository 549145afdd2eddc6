import { env } from "cloudflare:test";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { failingD1, failingLimiter } from "../support/faulty-bindings.ts";
import { seedKey } from "../support/keys.ts";
import { captureLogs, defectLines } from "../support/logs.ts";
import {
  CATALOGUE_OPERATIONS,
  Contract,
  PHOTO_OPERATIONS,
  sweepKeyRefusals,
} from "../support/openapi-contract.ts";
import { api, MANY_REQUESTS, postJson } from "../support/request.ts";
import { receivedAtLeast, receiverUrl, uniqueName } from "../support/webhooks.ts";

/**
 * The contract sweep: every operation is driven into every status it can
 * reach here, and each reply is checked against the document the Worker
 * serves (status listed, body valid, documented headers present and valid).
 * The operations that manage the catalogue are swept in contract-catalogue.test.ts,
 * those of animals' photos in contract-photos.test.ts.
 */

/** The operations other files sweep. */
const SWEPT_ELSEWHERE = [...CATALOGUE_OPERATIONS, ...PHOTO_OPERATIONS];

/** Documented replies no local request can produce yet, and why. */
const NOT_PRODUCIBLE: Record<string, string> = {
  "listPets 500": "only a defect produces it; storage faults are 503",
  "createPet 500": "only a defect produces it; storage faults are 503",
  "getPet 500": "only a defect produces it; storage faults are 503",
  "placeOrder 500": "only a defect produces it; storage faults are 503",
  "listOrders 500": "only a defect produces it; storage faults are 503",
  "getOrder 500": "only a defect produces it; storage faults are 503",
  "listEvents 500": "only a defect produces it; storage faults are 503",
  "createWebhook 500": "only a defect produces it; storage faults are 503",
  "listWebhooks 500": "only a defect produces it; storage faults are 503",
  "getWebhook 500": "only a defect produces it; storage faults are 503",
  "deleteWebhook 500": "only a defect produces it; storage faults are 503",
  "listDeliveries 500": "only a defect produces it; storage faults are 503",
  "updateWebhook 500": "only a defect produces it; storage faults are 503",
  "testWebhook 500": "only a defect produces it; storage faults are 503",
  "retryDelivery 500": "only a defect produces it; storage faults are 503",
  "recoverWebhook 500": "only a defect produces it; storage faults are 503",
  "rotateWebhookSecret 500": "only a defect produces it; storage faults are 503",
};

let contract: Contract;
let key: string;

beforeAll(async () => {
  contract = await Contract.load();
  key = (await seedKey()).key;
});

afterEach(() => {
  vi.useRealTimers();
});

afterAll(() => {
  const missing = contract.unswept((id) => !SWEPT_ELSEWHERE.includes(id), NOT_PRODUCIBLE);
  expect(missing, "documented replies the sweep never produced").toEqual([]);
  console.log(
    `contract sweep: ${contract.validated.length} responses validated against the document ` +
      `(${new Set(contract.validated).size} distinct operation/status pairs); not producible locally: ${Object.keys(NOT_PRODUCIBLE).join(", ")}`,
  );
});

describe("every operation", MANY_REQUESTS, () => {
  it("403 for a key without its scope, and for one used from outside its ranges", async () => {
    const operations = Object.values(contract.document.paths)
      .flatMap((item) => Object.values(item).map((operation) => operation.operationId))
      .filter((operationId) => !SWEPT_ELSEWHERE.includes(operationId));
    await sweepKeyRefusals(contract, operations);
  });
});

const newPet = (name: string, status?: string) => ({ name, categoryId: 1, status });

/** A fresh animal through createPet (checked too), in the given status. */
async function animal(status?: string): Promise<number> {
  const created = await postJson("/v1/pets", key, newPet("Stock", status));
  return ((await contract.check("createPet", created)) as { id: number }).id;
}

const placeOrder = (petId: unknown, init: { key?: string; headers?: HeadersInit } = {}) =>
  api("/v1/store/orders", { method: "POST", key, json: { petId }, ...init });

/** A fresh order through placeOrder (checked too). */
async function order(): Promise<{ id: number; petId: number }> {
  return (await contract.check("placeOrder", await placeOrder(await animal()))) as {
    id: number;
    petId: number;
  };
}

describe("createPet", () => {
  it("201 with and without an Idempotency-Key", async () => {
    for (const name of ["Rex", "Tom", "Kit"]) {
      await contract.check("createPet", await postJson("/v1/pets", key, newPet(name)));
    }
    const sold = await postJson("/v1/pets", key, newPet("Bo", "sold"));
    expect(sold.headers.get("Location")).toMatch(/^\/v1\/pets\/\d+$/);
    await contract.check("createPet", sold);
    const withKey = await api("/v1/pets", {
      method: "POST",
      key,
      json: newPet("Idem"),
      headers: { "Idempotency-Key": "order-2030-12-05/abc ~!" },
    });
    expect(withKey.status).toBe(201);
    await contract.check("createPet", withKey);
  });

  it("400 for invalid fields, unknown fields, bad JSON and bad Idempotency-Keys", async () => {
    const replies = [
      await postJson("/v1/pets", key, { categoryId: 1 }),
      await postJson("/v1/pets", key, { name: "   ", categoryId: 1 }),
      await postJson("/v1/pets", key, { name: "Rex", categoryId: 0 }),
      await postJson("/v1/pets", key, { id: 7, name: "Rex", categoryId: 1 }),
      await postJson("/v1/pets", key, newPet("Rex", "adopted")),
      await api("/v1/pets", {
        method: "POST",
        key,
        body: "{",
        headers: { "Content-Type": "application/json" },
      }),
      await api("/v1/pets", {
        method: "POST",
        key,
        json: newPet("Rex"),
        headers: { "Idempotency-Key": "x".repeat(256) },
      }),
      await api("/v1/pets", {
        method: "POST",
        key,
        json: newPet("Rex"),
        headers: { "Idempotency-Key": "tab\there" },
      }),
    ];
    const codes = [];
    for (const reply of replies) {
      expect(reply.status).toBe(400);
      codes.push(((await contract.check("createPet", reply)) as { code: string }).code);
    }
    expect(codes).toContain("invalid_json");
    expect(codes).toContain("invalid_request");
  });

  it("413 for a body over 64 KiB and 415 for another media type", async () => {
    const big = await api("/v1/pets", {
      method: "POST",
      key,
      body: JSON.stringify({ name: "x".repeat(65 * 1024), categoryId: 1 }),
      headers: { "Content-Type": "application/json" },
    });
    expect(big.status).toBe(413);
    await contract.check("createPet", big);
    const text = await api("/v1/pets", {
      method: "POST",
      key,
      body: JSON.stringify(newPet("Rex")),
      headers: { "Content-Type": "text/plain" },
    });
    expect(text.status).toBe(415);
    await contract.check("createPet", text);
  });

  it("401 without a key and with an unknown one", async () => {
    for (const reply of [
      await api("/v1/pets", { method: "POST", json: newPet("Rex") }),
      await api("/v1/pets", {
        method: "POST",
        key: `ps_test_${"A".repeat(32)}`,
        json: newPet("Rex"),
      }),
    ]) {
      expect(reply.status).toBe(401);
      await contract.check("createPet", reply);
    }
  });
});

describe("listPets", () => {
  it("200 pages, following Link to the last page, and a status filter", async () => {
    let path: string | undefined = "/v1/pets?limit=2";
    let pages = 0;
    while (path) {
      const reply = await api(path, { key });
      const link = reply.headers.get("Link");
      await contract.check("listPets", reply);
      pages += 1;
      const next = link ? /<([^>]+)>; rel="next"/.exec(link)?.[1] : undefined;
      path = next ? new URL(next).pathname + new URL(next).search : undefined;
    }
    expect(pages).toBeGreaterThan(1);
    await contract.check("listPets", await api("/v1/pets?status=sold", { key }));
    await contract.check("listPets", await api("/v1/pets?status=pending", { key }));
  });

  it("400 for a bad limit, status or cursor", async () => {
    for (const query of ["limit=0", "limit=101", "limit=2.5", "status=adopted", "cursor=nope"]) {
      const reply = await api(`/v1/pets?${query}`, { key });
      expect(reply.status, query).toBe(400);
      await contract.check("listPets", reply);
    }
  });

  it("401 without a key and with a malformed one", async () => {
    for (const reply of [
      await api("/v1/pets"),
      await api("/v1/pets", { headers: { Authorization: "Basic abc" } }),
    ]) {
      expect(reply.status).toBe(401);
      await contract.check("listPets", reply);
    }
  });
});

describe("getPet", () => {
  it("200 for an animal that exists", async () => {
    const created = await postJson("/v1/pets", key, newPet("Fetch"));
    const { id } = (await contract.check("createPet", created)) as { id: number };
    const reply = await api(`/v1/pets/${id}`, { key });
    expect(reply.status).toBe(200);
    await contract.check("getPet", reply);
  });

  it("404 for an unknown or malformed identifier", async () => {
    for (const petId of ["9007199254740991", "abc", "0", "9007199254740992"]) {
      const reply = await api(`/v1/pets/${petId}`, { key });
      expect(reply.status, petId).toBe(404);
      await contract.check("getPet", reply);
    }
  });

  it("401 without a key", async () => {
    const reply = await api("/v1/pets/1");
    expect(reply.status).toBe(401);
    await contract.check("getPet", reply);
  });

  it("410 from the sunset on", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2030-12-05T00:00:01Z"));
    const reply = await api("/v1/pets/1", { key });
    expect(reply.status).toBe(410);
    await contract.check("getPet", reply);
  });
});

describe("placeOrder", () => {
  it("201 with and without an Idempotency-Key, and its replay", async () => {
    const plain = await placeOrder(await animal());
    expect(plain.headers.get("Location")).toMatch(/^\/v1\/store\/orders\/\d+$/);
    await contract.check("placeOrder", plain);
    const petId = await animal();
    const keyed = { headers: { "Idempotency-Key": "contract-place" } };
    await contract.check("placeOrder", await placeOrder(petId, keyed));
    const replay = await placeOrder(petId, keyed);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    await contract.check("placeOrder", replay);
  });

  it("400, 413, 415 and 422 for what cannot be an order", async () => {
    for (const reply of [
      await placeOrder(0),
      await placeOrder("1"),
      await postJson("/v1/store/orders", key, { petId: 1, status: "placed" }),
      await api("/v1/store/orders", {
        method: "POST",
        key,
        body: "{",
        headers: { "Content-Type": "application/json" },
      }),
      await placeOrder(1, { headers: { "Idempotency-Key": "x".repeat(256) } }),
    ]) {
      expect(reply.status).toBe(400);
      await contract.check("placeOrder", reply);
    }
    const big = await api("/v1/store/orders", {
      method: "POST",
      key,
      body: JSON.stringify({ petId: 1, pad: "x".repeat(17 * 1024) }),
      headers: { "Content-Type": "application/json" },
    });
    expect(big.status).toBe(413);
    await contract.check("placeOrder", big);
    const text = await api("/v1/store/orders", {
      method: "POST",
      key,
      body: '{"petId":1}',
      headers: { "Content-Type": "text/plain" },
    });
    expect(text.status).toBe(415);
    await contract.check("placeOrder", text);
    const reused = { headers: { "Idempotency-Key": "contract-place-422" } };
    const created = await placeOrder(await animal(), reused);
    await contract.check("placeOrder", created);
    const other = await placeOrder(await animal(), reused);
    expect(other.status).toBe(422);
    await contract.check("placeOrder", other);
  });

  it("401 without a key, 404 for an unknown animal, 409 for one that is not available", async () => {
    const anonymous = await placeOrder(1, { key: undefined });
    expect(anonymous.status).toBe(401);
    await contract.check("placeOrder", anonymous);
    const unknown = await placeOrder(9007199254740991);
    expect(unknown.status).toBe(404);
    await contract.check("placeOrder", unknown);
    for (const status of ["pending", "sold"]) {
      const refused = await placeOrder(await animal(status));
      expect(refused.status).toBe(409);
      await contract.check("placeOrder", refused);
    }
  });
});

describe("listOrders and getOrder", () => {
  it("200 pages, following Link to the last page, and a status filter", async () => {
    for (let i = 0; i < 3; i++) await order();
    let path: string | undefined = "/v1/store/orders?limit=2";
    let pages = 0;
    while (path) {
      const reply = await api(path, { key });
      const link = reply.headers.get("Link");
      await contract.check("listOrders", reply);
      pages += 1;
      const next = link ? /<([^>]+)>; rel="next"/.exec(link)?.[1] : undefined;
      path = next ? new URL(next).pathname + new URL(next).search : undefined;
    }
    expect(pages).toBeGreaterThan(1);
    await contract.check("listOrders", await api("/v1/store/orders?status=placed", { key }));
  });

  it("400 for a bad limit, status or cursor, 401 without a key", async () => {
    for (const query of ["limit=0", "status=sold", "cursor=nope"]) {
      const reply = await api(`/v1/store/orders?${query}`, { key });
      expect(reply.status, query).toBe(400);
      await contract.check("listOrders", reply);
    }
    const anonymous = await api("/v1/store/orders");
    expect(anonymous.status).toBe(401);
    await contract.check("listOrders", anonymous);
  });

  it("getOrder: 200, 404 for another account's, an unknown or a malformed id, 401", async () => {
    const mine = await order();
    const fetched = await api(`/v1/store/orders/${mine.id}`, { key });
    expect(fetched.status).toBe(200);
    await contract.check("getOrder", fetched);
    const stranger = (await seedKey()).key;
    for (const [orderId, as] of [
      [String(mine.id), stranger],
      ["9007199254740991", key],
      ["abc", key],
    ] as const) {
      const reply = await api(`/v1/store/orders/${orderId}`, { key: as });
      expect(reply.status, orderId).toBe(404);
      await contract.check("getOrder", reply);
    }
    const anonymous = await api(`/v1/store/orders/${mine.id}`);
    expect(anonymous.status).toBe(401);
    await contract.check("getOrder", anonymous);
  });
});

describe.each(["completeOrder", "cancelOrder"] as const)("%s", (operationId) => {
  const action = operationId === "completeOrder" ? "complete" : "cancel";
  const moveOrder = (orderId: number | string, init: { key?: string } = { key }) =>
    api(`/v1/store/orders/${orderId}/${action}`, { method: "POST", ...init });

  it("200, then 409 for the order it moved, 404 for an unknown one, 401 without a key", async () => {
    const placed = await order();
    const moved = await moveOrder(placed.id);
    expect(moved.status).toBe(200);
    await contract.check(operationId, moved);
    const again = await moveOrder(placed.id);
    expect(again.status).toBe(409);
    await contract.check(operationId, again);
    for (const orderId of ["9007199254740991", "0"]) {
      const unknown = await moveOrder(orderId);
      expect(unknown.status).toBe(404);
      await contract.check(operationId, unknown);
    }
    const anonymous = await moveOrder(placed.id, {});
    expect(anonymous.status).toBe(401);
    await contract.check(operationId, anonymous);
  });

  describe("a defect", () => {
    const logs = captureLogs();

    it("500 when the order's animal was changed outside the API", async () => {
      const placed = await order();
      await env.DB.prepare("UPDATE pets SET status = 'sold' WHERE id = ?").bind(placed.petId).run();
      const reply = await moveOrder(placed.id);
      expect(reply.status).toBe(500);
      await contract.check(operationId, reply);
      expect(logs.lines).toEqual(defectLines(/is placed but its animal is not pending/));
    });
  });
});

/** Follows Link from `path` to the last page, checking each page; returns how many pages there were. */
async function sweepPages(operationId: string, path: string, as = key): Promise<number> {
  let next: string | undefined = path;
  let pages = 0;
  while (next) {
    const reply = await api(next, { key: as });
    const link = reply.headers.get("Link");
    expect(reply.status).toBe(200);
    await contract.check(operationId, reply);
    pages += 1;
    const url = link ? /<([^>]+)>; rel="next"/.exec(link)?.[1] : undefined;
    next = url ? new URL(url).pathname + new URL(url).search : undefined;
  }
  return pages;
}

const createWebhook = (json: unknown, as: string | undefined = key) =>
  api("/v1/webhooks", { method: "POST", key: as, json });

describe("listEvents", () => {
  it("200 pages, following Link to the last page, and the type filter", async () => {
    await order();
    expect(await sweepPages("listEvents", "/v1/events?limit=2")).toBeGreaterThan(1);
    for (const type of ["pet.*", "order.placed"]) {
      await contract.check("listEvents", await api(`/v1/events?type=${type}`, { key }));
    }
  });

  it("400 for a bad limit, type or cursor, 401 without a key", async () => {
    for (const query of ["limit=0", "type=pet", "cursor=nope"]) {
      const reply = await api(`/v1/events?${query}`, { key });
      expect(reply.status, query).toBe(400);
      await contract.check("listEvents", reply);
    }
    const anonymous = await api("/v1/events");
    expect(anonymous.status).toBe(401);
    await contract.check("listEvents", anonymous);
  });
});

describe("createWebhook, listWebhooks, deleteWebhook, listDeliveries", () => {
  it("201, 200 and 204 for an endpoint's life, with its attempts paged", async () => {
    const owner = (await seedKey()).key;
    const name = uniqueName("contract");
    const created = await createWebhook(
      { url: receiverUrl("ok", name), types: ["pet.created"] },
      owner,
    );
    expect(created.status).toBe(201);
    const { id } = (await contract.check("createWebhook", created)) as { id: number };
    await contract.check("listWebhooks", await api("/v1/webhooks", { key: owner }));
    const fetched = await api(`/v1/webhooks/${id}`, { key: owner });
    expect(fetched.status).toBe(200);
    await contract.check("getWebhook", fetched);
    for (const name of ["One", "Two", "Three"]) {
      await postJson("/v1/pets", owner, newPet(name)).then((res) => res.arrayBuffer());
    }
    await receivedAtLeast(name, 3);
    expect(await sweepPages("listDeliveries", `/v1/webhooks/${id}/deliveries?limit=2`, owner)).toBe(
      2,
    );
    const deleted = await api(`/v1/webhooks/${id}`, { method: "DELETE", key: owner });
    expect(deleted.status).toBe(204);
    await contract.check("deleteWebhook", deleted);
  });

  it("400, 413 and 415 for what cannot be an endpoint; 409 for the 11th", async () => {
    for (const json of [
      { url: "https://127.0.0.1/hook", types: ["pet.*"] },
      { url: "https://example.com/hook", types: [] },
      { url: "https://example.com/hook", types: ["pet.*"], extra: 1 },
    ]) {
      const reply = await createWebhook(json);
      expect(reply.status).toBe(400);
      await contract.check("createWebhook", reply);
    }
    const big = await api("/v1/webhooks", {
      method: "POST",
      key,
      body: JSON.stringify({
        url: "https://example.com/",
        types: ["pet.*"],
        pad: "x".repeat(17 * 1024),
      }),
      headers: { "Content-Type": "application/json" },
    });
    expect(big.status).toBe(413);
    await contract.check("createWebhook", big);
    const text = await api("/v1/webhooks", {
      method: "POST",
      key,
      body: "{}",
      headers: { "Content-Type": "text/plain" },
    });
    expect(text.status).toBe(415);
    await contract.check("createWebhook", text);
    const full = (await seedKey()).key;
    for (let i = 0; i < 10; i++) {
      const made = await createWebhook(
        { url: receiverUrl("ok", "never-called"), types: ["order.*"] },
        full,
      );
      await contract.check("createWebhook", made);
    }
    const eleventh = await createWebhook(
      { url: receiverUrl("ok", "never-called"), types: ["order.*"] },
      full,
    );
    expect(eleventh.status).toBe(409);
    await contract.check("createWebhook", eleventh);
  });

  it(
    "404 for another account's or a malformed endpoint, 400 for a bad page, 401 without a key",
    MANY_REQUESTS,
    async () => {
      const mine = (await contract.check(
        "createWebhook",
        await createWebhook({ url: receiverUrl("ok", "never-called"), types: ["order.*"] }),
      )) as { id: number };
      const stranger = (await seedKey()).key;
      for (const [webhookId, as] of [
        [String(mine.id), stranger],
        ["abc", key],
        ["9007199254740991", key],
      ] as const) {
        const fetched = await api(`/v1/webhooks/${webhookId}`, { key: as });
        expect(fetched.status).toBe(404);
        await contract.check("getWebhook", fetched);
        const listing = await api(`/v1/webhooks/${webhookId}/deliveries`, { key: as });
        expect(listing.status).toBe(404);
        await contract.check("listDeliveries", listing);
        const deleting = await api(`/v1/webhooks/${webhookId}`, { method: "DELETE", key: as });
        expect(deleting.status).toBe(404);
        await contract.check("deleteWebhook", deleting);
      }
      for (const query of ["limit=0", "cursor=nope"]) {
        const reply = await api(`/v1/webhooks/${mine.id}/deliveries?${query}`, { key });
        expect(reply.status).toBe(400);
        await contract.check("listDeliveries", reply);
      }
      for (const [operationId, path, method] of [
        ["createWebhook", "/v1/webhooks", "POST"],
        ["listWebhooks", "/v1/webhooks", "GET"],
        ["getWebhook", `/v1/webhooks/${mine.id}`, "GET"],
        ["deleteWebhook", `/v1/webhooks/${mine.id}`, "DELETE"],
        ["listDeliveries", `/v1/webhooks/${mine.id}/deliveries`, "GET"],
      ] as const) {
        const reply = await api(path, { method, json: method === "POST" ? {} : undefined });
        expect(reply.status).toBe(401);
        await contract.check(operationId, reply);
      }
      const gone = await api(`/v1/webhooks/${mine.id}`, { method: "DELETE", key });
      await contract.check("deleteWebhook", gone);
    },
  );
});

describe("updateWebhook, testWebhook, retryDelivery, recoverWebhook", () => {
  it(
    "200 and 202 for an endpoint's operation; 400, 404, 413 and 415 for what cannot be done; 401 without a key",
    MANY_REQUESTS,
    async () => {
      const owner = (await seedKey()).key;
      const name = uniqueName("contract-operated");
      const { id } = (await contract.check(
        "createWebhook",
        await createWebhook({ url: receiverUrl("ok", name), types: ["order.*"] }, owner),
      )) as { id: number };
      const path = `/v1/webhooks/${id}`;
      const patch = (json: unknown, as: string | undefined = owner) =>
        api(path, { method: "PATCH", key: as, json });
      await contract.check("updateWebhook", await patch({ enabled: false }));
      await contract.check("updateWebhook", await patch({ enabled: true, types: ["pet.*"] }));
      const tested = (await contract.check(
        "testWebhook",
        await api(`${path}/test`, { method: "POST", key: owner }),
      )) as { id: number };
      await receivedAtLeast(name, 1);
      await contract.check(
        "retryDelivery",
        await api(`${path}/deliveries/${tested.id}/retry`, { method: "POST", key: owner }),
      );
      const since = new Date(Date.now() - 60_000).toISOString();
      const recover = (json: unknown, as: string | undefined = owner, at = path) =>
        api(`${at}/recover`, { method: "POST", key: as, json });
      await contract.check("recoverWebhook", await recover({ since }));

      for (const body of [{}, { url: "https://10.1.2.3/hook" }, { enabled: 1 }]) {
        const reply = await patch(body);
        expect(reply.status).toBe(400);
        await contract.check("updateWebhook", reply);
      }
      for (const body of [{}, { since: "yesterday" }, { since, extra: 1 }]) {
        const reply = await recover(body);
        expect(reply.status).toBe(400);
        await contract.check("recoverWebhook", reply);
      }
      const stranger = (await seedKey()).key;
      const notMine: [string, Promise<Response>][] = [
        ["updateWebhook", patch({ enabled: false }, stranger)],
        ["testWebhook", api(`${path}/test`, { method: "POST", key: stranger })],
        ["testWebhook", api("/v1/webhooks/abc/test", { method: "POST", key: owner })],
        [
          "retryDelivery",
          api(`${path}/deliveries/${tested.id}/retry`, { method: "POST", key: stranger }),
        ],
        ["retryDelivery", api(`${path}/deliveries/999999/retry`, { method: "POST", key: owner })],
        ["retryDelivery", api(`${path}/deliveries/x/retry`, { method: "POST", key: owner })],
        ["recoverWebhook", recover({ since }, stranger)],
      ];
      for (const [operationId, reply] of notMine) {
        const response = await reply;
        expect(response.status, operationId).toBe(404);
        await contract.check(operationId, response);
      }
      for (const [operationId, method, at] of [
        ["updateWebhook", "PATCH", path],
        ["recoverWebhook", "POST", `${path}/recover`],
      ] as const) {
        const big = await api(at, {
          method,
          key: owner,
          body: JSON.stringify({ since, pad: "x".repeat(17 * 1024) }),
          headers: { "Content-Type": "application/json" },
        });
        expect(big.status).toBe(413);
        await contract.check(operationId, big);
        const text = await api(at, {
          method,
          key: owner,
          body: "{}",
          headers: { "Content-Type": "text/plain" },
        });
        expect(text.status).toBe(415);
        await contract.check(operationId, text);
      }
      for (const [operationId, method, at] of [
        ["updateWebhook", "PATCH", path],
        ["testWebhook", "POST", `${path}/test`],
        ["retryDelivery", "POST", `${path}/deliveries/${tested.id}/retry`],
        ["recoverWebhook", "POST", `${path}/recover`],
      ] as const) {
        const reply = await api(at, { method, json: method === "PATCH" ? {} : undefined });
        expect(reply.status).toBe(401);
        await contract.check(operationId, reply);
      }
    },
  );
});

describe("rotateWebhookSecret and createWebhook's Idempotency-Key", () => {
  it("200 and replays with the documented headers, 422 for a reused key, 400, 404 and 401", async () => {
    const owner = (await seedKey()).key;
    const json = { url: receiverUrl("ok", "never-called"), types: ["order.*"] };
    const create = () =>
      api("/v1/webhooks", {
        method: "POST",
        key: owner,
        json,
        headers: { "Idempotency-Key": "c1" },
      });
    const { id } = (await contract.check("createWebhook", await create())) as { id: number };
    const replayed = await create();
    expect(replayed.headers.get("Idempotent-Replayed")).toBe("true");
    await contract.check("createWebhook", replayed);
    const reused = await api("/v1/webhooks", {
      method: "POST",
      key: owner,
      json: { ...json, types: ["pet.*"] },
      headers: { "Idempotency-Key": "c1" },
    });
    expect(reused.status).toBe(422);
    await contract.check("createWebhook", reused);

    const path = `/v1/webhooks/${id}/rotate-secret`;
    const rotate = (idempotencyKey: string, as: string | undefined = owner, at = path) =>
      api(at, { method: "POST", key: as, headers: { "Idempotency-Key": idempotencyKey } });
    await contract.check("rotateWebhookSecret", await rotate("r1"));
    const again = await rotate("r1");
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    await contract.check("rotateWebhookSecret", again);
    const otherOperation = await rotate("c1");
    expect(otherOperation.status).toBe(422);
    await contract.check("rotateWebhookSecret", otherOperation);
    const badKey = await rotate("");
    expect(badKey.status).toBe(400);
    await contract.check("rotateWebhookSecret", badKey);
    for (const reply of [
      await rotate("r2", (await seedKey()).key),
      await rotate("r3", owner, "/v1/webhooks/abc/rotate-secret"),
    ]) {
      expect(reply.status).toBe(404);
      await contract.check("rotateWebhookSecret", reply);
    }
    const anonymous = await api(path, { method: "POST" });
    expect(anonymous.status).toBe(401);
    await contract.check("rotateWebhookSecret", anonymous);
  });
});

describe("the requests webhooks deliver", () => {
  it("match the document's `webhooks`, kind by kind, headers included", MANY_REQUESTS, async () => {
    const owner = (await seedKey()).key;
    const name = uniqueName("contract-deliveries");
    const endpoint = (await contract.check(
      "createWebhook",
      await createWebhook(
        { url: receiverUrl("ok", name), types: ["pet.*", "category.*", "shelter.*", "order.*"] },
        owner,
      ),
    )) as { id: number };
    await contract.check(
      "testWebhook",
      await api(`/v1/webhooks/${endpoint.id}/test`, { method: "POST", key: owner }),
    );
    const petId = (await contract.check(
      "createPet",
      await postJson("/v1/pets", owner, newPet("Delivered")),
    )) as { id: number };
    for (const action of ["complete", "cancel"]) {
      const placed = (await contract.check(
        "placeOrder",
        await placeOrder(
          action === "complete"
            ? petId.id
            : (
                (await contract.check(
                  "createPet",
                  await postJson("/v1/pets", owner, newPet("Again")),
                )) as { id: number }
              ).id,
          { key: owner },
        ),
      )) as { id: number };
      const moved = await api(`/v1/store/orders/${placed.id}/${action}`, {
        method: "POST",
        key: owner,
      });
      await contract.check(action === "complete" ? "completeOrder" : "cancelOrder", moved);
    }
    // The first animal, sold, is renamed, then deleted; a category is added, renamed, deleted.
    const renamed = await api(`/v1/pets/${petId.id}`, {
      method: "PATCH",
      key: owner,
      json: { name: "Renamed" },
    });
    await contract.check("updatePet", renamed);
    await contract.check(
      "deletePet",
      await api(`/v1/pets/${petId.id}`, { method: "DELETE", key: owner }),
    );
    const category = (await contract.check(
      "createCategory",
      await postJson("/v1/categories", owner, { name: name.slice(-40) }),
    )) as { id: number };
    const categoryPath = `/v1/categories/${category.id}`;
    await contract.check(
      "updateCategory",
      await api(categoryPath, { method: "PATCH", key: owner, json: { name: "Delivered" } }),
    );
    await contract.check(
      "deleteCategory",
      await api(categoryPath, { method: "DELETE", key: owner }),
    );
    // A shelter is added, changed and deleted.
    const shelter = (await contract.check(
      "createShelter",
      await api("/v1/shelters", {
        method: "POST",
        key: owner,
        json: {
          name: "Delivered",
          email: "delivered@shelter.example",
          address: { city: "Oslo", country: "NO" },
          latitude: 59.9139,
          longitude: 10.7522,
        },
      }),
    )) as { id: number };
    const shelterPath = `/v1/shelters/${shelter.id}`;
    await contract.check(
      "updateShelter",
      await api(shelterPath, { method: "PATCH", key: owner, json: { name: "Delivered again" } }),
    );
    await contract.check("deleteShelter", await api(shelterPath, { method: "DELETE", key: owner }));
    // A test; two animals, two placements, two moves: 2 created, 4 status changes, 2 placed,
    // 1 completed, 1 cancelled; then 1 updated, 1 deleted, 3 category and 3 shelter events.
    const requests = await receivedAtLeast(name, 19);
    const kinds = new Set<string>();
    const document = contract.document as unknown as {
      webhooks: Record<string, { post: { parameters: { name: string }[] } }>;
    };
    for (const request of requests) {
      const body = JSON.parse(request.body) as { type: string };
      kinds.add(body.type);
      const pointer = `/webhooks/${body.type}/post/requestBody/content/application~1json/schema`;
      expect(contract.accepts(pointer, body), request.body).toBe(true);
      for (const parameter of document.webhooks[body.type]?.post.parameters ?? []) {
        expect(request.headers[parameter.name], parameter.name).toBeTruthy();
      }
    }
    expect([...kinds].sort()).toEqual(Object.keys(document.webhooks).sort());
  });
});

describe("429 for every operation", () => {
  it("answers 429 once a tiny Enterprise budget is spent", MANY_REQUESTS, async () => {
    const tiny = async () =>
      (await seedKey({ plan: "enterprise", limits: { perMinute: 1, perDay: 1 } })).key;
    const cases: [string, (k: string) => Promise<Response>][] = [
      ["listPets", (k) => api("/v1/pets", { key: k })],
      ["createPet", (k) => postJson("/v1/pets", k, newPet("Late"))],
      ["getPet", (k) => api("/v1/pets/1", { key: k })],
      ["listOrders", (k) => api("/v1/store/orders", { key: k })],
      ["placeOrder", (k) => postJson("/v1/store/orders", k, {})],
      ["getOrder", (k) => api("/v1/store/orders/1", { key: k })],
      ["completeOrder", (k) => api("/v1/store/orders/1/complete", { method: "POST", key: k })],
      ["cancelOrder", (k) => api("/v1/store/orders/1/cancel", { method: "POST", key: k })],
      ["listEvents", (k) => api("/v1/events", { key: k })],
      ["createWebhook", (k) => postJson("/v1/webhooks", k, {})],
      ["listWebhooks", (k) => api("/v1/webhooks", { key: k })],
      ["getWebhook", (k) => api("/v1/webhooks/1", { key: k })],
      ["deleteWebhook", (k) => api("/v1/webhooks/1", { method: "DELETE", key: k })],
      ["listDeliveries", (k) => api("/v1/webhooks/1/deliveries", { key: k })],
      ["updateWebhook", (k) => api("/v1/webhooks/1", { method: "PATCH", key: k, json: {} })],
      ["testWebhook", (k) => api("/v1/webhooks/1/test", { method: "POST", key: k })],
      [
        "retryDelivery",
        (k) => api("/v1/webhooks/1/deliveries/1/retry", { method: "POST", key: k }),
      ],
      ["recoverWebhook", (k) => postJson("/v1/webhooks/1/recover", k, {})],
      [
        "rotateWebhookSecret",
        (k) => api("/v1/webhooks/1/rotate-secret", { method: "POST", key: k }),
      ],
    ];
    for (const [operationId, send] of cases) {
      const limited = await tiny();
      const first = await send(limited);
      await contract.check(operationId, first);
      const refused = await send(limited);
      expect(refused.status, operationId).toBe(429);
      const body = (await contract.check(operationId, refused)) as { code: string };
      expect(body.code).toBe("rate_limited");
      expect(refused.headers.get("X-RateLimit-Remaining")).toBe("0");
    }
  });
});

describe("304 for every read", () => {
  it("answers a GET whose If-None-Match names its ETag with 304 and the 200's headers", async () => {
    const owner = (await seedKey()).key;
    const petId = await animal();
    const webhook = await createWebhook(
      { url: receiverUrl("ok", uniqueName("reads")), types: ["order.*"] },
      owner,
    );
    const { id: webhookId } = (await contract.check("createWebhook", webhook)) as { id: number };
    const reads: [string, string, string][] = [
      ["listPets", "/v1/pets?limit=2", key],
      ["getPet", `/v1/pets/${petId}`, key],
      ["listOrders", "/v1/store/orders?limit=2", key],
      ["getOrder", `/v1/store/orders/${(await order()).id}`, key],
      ["listEvents", "/v1/events?limit=2", key],
      ["listWebhooks", "/v1/webhooks", owner],
      ["getWebhook", `/v1/webhooks/${webhookId}`, owner],
      ["listDeliveries", `/v1/webhooks/${webhookId}/deliveries`, owner],
    ];
    for (const [operationId, path, as] of reads) {
      const first = await api(path, { key: as });
      const tag = first.headers.get("ETag") ?? "";
      await contract.check(operationId, first);
      const again = await api(path, { key: as, headers: { "If-None-Match": tag } });
      expect(again.status, operationId).toBe(304);
      expect(await contract.check(operationId, again)).toBe("");
    }
  });
});

describe("422 and replays for createPet's Idempotency-Key", () => {
  it("replays with the documented headers and refuses a reused key", async () => {
    const send = (name: string) =>
      api("/v1/pets", {
        method: "POST",
        key,
        json: newPet(name),
        headers: { "Idempotency-Key": "contract-422" },
      });
    await contract.check("createPet", await send("Ida"));
    const replay = await send("Ida");
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    await contract.check("createPet", replay);
    const reused = await send("Other");
    expect(reused.status).toBe(422);
    await contract.check("createPet", reused);
  });
});

describe("503 for every operation when storage fails", () => {
  const logs = captureLogs();

  it("answers 503 for a failing D1 and a failing rate limiter", MANY_REQUESTS, async () => {
    const cases: [string, string, RequestInit][] = [
      ["listPets", "/v1/pets", {}],
      ["getPet", "/v1/pets/1", {}],
      [
        "createPet",
        "/v1/pets",
        {
          method: "POST",
          body: JSON.stringify(newPet("Fault")),
          headers: { "Content-Type": "application/json" },
        },
      ],
      ["listOrders", "/v1/store/orders", {}],
      ["getOrder", "/v1/store/orders/1", {}],
      [
        "placeOrder",
        "/v1/store/orders",
        {
          method: "POST",
          body: JSON.stringify({ petId: 1 }),
          headers: { "Content-Type": "application/json" },
        },
      ],
      ["completeOrder", "/v1/store/orders/1/complete", { method: "POST" }],
      ["cancelOrder", "/v1/store/orders/1/cancel", { method: "POST" }],
      ["listEvents", "/v1/events", {}],
      [
        "createWebhook",
        "/v1/webhooks",
        {
          method: "POST",
          body: JSON.stringify({ url: "https://example.com/hook", types: ["pet.*"] }),
          headers: { "Content-Type": "application/json" },
        },
      ],
      ["listWebhooks", "/v1/webhooks", {}],
      ["getWebhook", "/v1/webhooks/1", {}],
      ["deleteWebhook", "/v1/webhooks/1", { method: "DELETE" }],
      ["listDeliveries", "/v1/webhooks/1/deliveries", {}],
      [
        "updateWebhook",
        "/v1/webhooks/1",
        {
          method: "PATCH",
          body: JSON.stringify({ enabled: false }),
          headers: { "Content-Type": "application/json" },
        },
      ],
      ["testWebhook", "/v1/webhooks/1/test", { method: "POST" }],
      ["retryDelivery", "/v1/webhooks/1/deliveries/1/retry", { method: "POST" }],
      ["rotateWebhookSecret", "/v1/webhooks/1/rotate-secret", { method: "POST" }],
      [
        "recoverWebhook",
        "/v1/webhooks/1/recover",
        {
          method: "POST",
          body: JSON.stringify({ since: "2026-01-01T00:00:00Z" }),
          headers: { "Content-Type": "application/json" },
        },
      ],
    ];
    for (const [operationId, path, init] of cases) {
      for (const replaced of [{ DB: failingD1() }, { RATE_LIMITER: failingLimiter() }]) {
        const reply = await api(path, { ...init, key, bindings: replaced });
        expect(reply.status, operationId).toBe(503);
        await contract.check(operationId, reply);
      }
    }
    const stores = logs.lines.flatMap((line) => (line.store ? [line.store] : []));
    expect(new Set(stores)).toEqual(new Set(["D1", "Durable Object"]));
  });
});

describe("replies outside any operation", () => {
  it("405 and unknown routes carry the Error body", async () => {
    for (const [path, method] of [
      ["/v1/pets", "DELETE"],
      ["/v1/pets/1", "PUT"],
      ["/v1/store/orders", "PATCH"],
      ["/v1/store/orders/1/complete", "GET"],
      ["/v1/events", "DELETE"],
      ["/v1/webhooks", "PUT"],
      ["/v1/webhooks/1", "PUT"],
      ["/v1/webhooks/1/test", "GET"],
      ["/v1/webhooks/1/recover", "GET"],
      ["/v1/webhooks/1/deliveries/1/retry", "GET"],
      ["/v1/webhooks/1/deliveries", "POST"],
    ] as const) {
      const reply = await api(path, { key, method });
      expect(reply.status).toBe(405);
      expect(reply.headers.get("Allow")).toBeTruthy();
      await contract.checkError(reply);
    }
    const unknown = await api("/v1/nothing-here", { key });
    expect(unknown.status).toBe(404);
    await contract.checkError(unknown);
  });
});
