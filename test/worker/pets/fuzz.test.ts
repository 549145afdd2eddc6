import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { PET_KEYS, UNKNOWN_PROFILE } from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { runs as numRuns, seed } from "../support/property.ts";
import { api, postJson } from "../support/request.ts";

const ERROR_KEYS = ["code", "message", "status"];
// RUNS= in the thousands takes far beyond the default per-test timeout.
const TIMEOUT_MS = 180_000;

let key: string;

beforeAll(async () => {
  ({ key } = await seedKey({ plan: "enterprise", limits: { perMinute: 1e9, perDay: 1e9 } }));
});

function expectErrorBody(body: Record<string, unknown>, status: number): void {
  const keys = Object.keys(body).filter((name) => name !== "details");
  expect(keys.sort()).toEqual(ERROR_KEYS);
  expect(body.status).toBe(status);
  expect(typeof body.code).toBe("string");
  expect(typeof body.message).toBe("string");
}

async function check(
  property: fc.IAsyncProperty<[unknown]> | fc.IAsyncPropertyWithHooks<[unknown]>,
) {
  await fc.assert(property, { seed, numRuns }).catch((error: unknown) => {
    throw new Error(`fuzz failed with seed ${seed}: ${String(error)}`);
  });
}

describe(`fuzzing (seed ${seed}, ${numRuns} runs each)`, () => {
  it(
    "answers any JSON body with 201 and an animal, 400 and an Error, or 422 for a category that names none",
    async () => {
      const body = fc.oneof(
        fc.jsonValue(),
        fc.record(
          {
            name: fc.jsonValue(),
            categoryId: fc.jsonValue(),
            status: fc.jsonValue(),
            extra: fc.jsonValue(),
          },
          { requiredKeys: [] },
        ),
      );
      await check(
        fc.asyncProperty(body, async (json) => {
          const res = await api("/v1/pets", { method: "POST", key, json });
          const reply = (await res.json()) as Record<string, unknown>;
          expect([201, 400, 422]).toContain(res.status);
          if (res.status === 201) expect(Object.keys(reply)).toEqual(PET_KEYS);
          else expectErrorBody(reply, res.status);
          if (res.status === 422) expect(reply.code).toBe("unknown_category");
        }),
      );
    },
    TIMEOUT_MS,
  );

  it(
    "round-trips every valid animal exactly",
    async () => {
      const newPet = fc.record(
        {
          name: fc
            .string({ minLength: 1, maxLength: 100, unit: "grapheme" })
            .filter((name) => name.trim().length > 0),
          // The seven categories the catalogue starts with.
          categoryId: fc.integer({ min: 1, max: 7 }),
          status: fc.constantFrom("available", "pending", "sold"),
        },
        { requiredKeys: ["name", "categoryId"] },
      );
      await check(
        fc.asyncProperty(newPet, async (pet) => {
          const created = await postJson("/v1/pets", key, pet);
          const body = (await created.json()) as { id: number };
          if (created.status !== 201)
            throw new Error(`create gave ${created.status}: ${JSON.stringify(body)}`);
          const fetched = await api(`/v1/pets/${body.id}`, { key });
          expect(await fetched.json()).toEqual({
            status: "available",
            ...pet,
            id: body.id,
            ...UNKNOWN_PROFILE,
            etag: '"1"',
            photoUrls: [],
          });
        }),
      );
    },
    TIMEOUT_MS,
  );

  it(
    "answers any query string on the list with 200 or 400",
    async () => {
      const query = fc.array(
        fc.tuple(
          fc.constantFrom("limit", "status", "categoryId", "id", "q", "direction", "cursor", "x"),
          fc.oneof(fc.string(), fc.integer().map(String), fc.double().map(String)),
        ),
        { maxLength: 6 },
      );
      await check(
        fc.asyncProperty(query, async (params) => {
          const res = await api(`/v1/pets?${new URLSearchParams(params)}`, { key });
          const reply = (await res.json()) as Record<string, unknown>;
          expect([200, 400]).toContain(res.status);
          if (res.status === 400) expectErrorBody(reply, 400);
          else expect(Array.isArray(reply)).toBe(true);
        }),
      );
    },
    TIMEOUT_MS,
  );

  it(
    "answers any path id with 200 or 404",
    async () => {
      const petId = fc.oneof(
        fc.string({ minLength: 1 }),
        fc.integer().map(String),
        fc.double().map(String),
      );
      await check(
        fc.asyncProperty(petId, async (id) => {
          const res = await api(`/v1/pets/${encodeURIComponent(id)}`, { key });
          const reply = (await res.json()) as Record<string, unknown>;
          expect([200, 404]).toContain(res.status);
          if (res.status === 404) expectErrorBody(reply, 404);
        }),
      );
    },
    TIMEOUT_MS,
  );
});
