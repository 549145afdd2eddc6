import { describe, expect, it } from "vitest";
import { sweepFrame } from "../support/contract-sweep.ts";
import { failingD1, failingLimiter, failingR2 } from "../support/faulty-bindings.ts";
import { seedKey } from "../support/keys.ts";
import { captureLogs } from "../support/logs.ts";
import { type Contract, PHOTO_OPERATIONS, sweepKeyRefusals } from "../support/openapi-contract.ts";
import { imageOf, upload } from "../support/photos.ts";
import { type ApiRequestInit, api, MANY_REQUESTS, postJson } from "../support/request.ts";

/**
 * The contract sweep of animals' photos: each operation driven into every
 * status it can reach here, each reply checked against the document the
 * Worker serves.
 */

const logs = captureLogs();

let contract: Contract;
let key: string;
let otherKey: string;

sweepFrame(PHOTO_OPERATIONS, (setup) => {
  ({ contract, key, otherKey } = setup);
});

describe("every operation of photos", MANY_REQUESTS, () => {
  it("403 for a key without its scope, and for one used from outside its ranges", async () => {
    await sweepKeyRefusals(contract, PHOTO_OPERATIONS);
  });
});

async function animal(): Promise<number> {
  const res = await postJson("/v1/pets", key, { name: "Posed", categoryId: 1 });
  return ((await contract.check("createPet", res)) as { id: number }).id;
}

async function photo(petId: number): Promise<string> {
  const res = await upload(key, petId, imageOf("image/jpeg"));
  return ((await contract.check("addPetPhoto", res)) as { id: string }).id;
}

/** Sends each request and checks its reply against the operation, insisting on the status. */
async function expectReplies(
  operationId: string,
  status: number,
  requests: (() => Promise<Response>)[],
): Promise<void> {
  for (const send of requests) {
    const reply = await send();
    expect(reply.status, operationId).toBe(status);
    await contract.check(operationId, reply);
  }
}

describe("addPetPhoto", () => {
  it("201 for each format, with and without an Idempotency-Key, and its replay", async () => {
    const petId = await animal();
    for (const type of ["image/jpeg", "image/png", "image/webp"] as const) {
      await contract.check("addPetPhoto", await upload(key, petId, imageOf(type), type));
    }
    const keyed = { headers: { "Idempotency-Key": `contract-photo-${petId}` } };
    const send = () => upload(key, petId, imageOf("image/png", 99), "image/png", keyed);
    await expectReplies("addPetPhoto", 201, [send, send]);
  });

  it("400, 404, 409, 413, 415 and 422 for what cannot be added", MANY_REQUESTS, async () => {
    const petId = await animal();
    const keyed = { headers: { "Idempotency-Key": `contract-reused-${petId}` } };
    await contract.check(
      "addPetPhoto",
      await upload(key, petId, imageOf("image/png"), "image/png", keyed),
    );
    await expectReplies("addPetPhoto", 400, [
      () =>
        upload(key, petId, imageOf("image/jpeg"), "image/jpeg", {
          headers: { "Idempotency-Key": "" },
        }),
    ]);
    await expectReplies("addPetPhoto", 404, [
      () => upload(key, 9007199254740991, imageOf("image/jpeg")),
      () => upload(key, "abc" as unknown as number, imageOf("image/jpeg")),
    ]);
    await expectReplies("addPetPhoto", 413, [
      () => upload(key, petId, imageOf("image/jpeg", 5 * 1024 * 1024 + 1)),
    ]);
    await expectReplies("addPetPhoto", 415, [
      () => upload(key, petId, imageOf("image/png"), "image/jpeg"),
      () => upload(key, petId, imageOf("image/png"), "image/gif"),
    ]);
    await expectReplies("addPetPhoto", 422, [
      () => upload(key, petId, imageOf("image/png", 300), "image/png", keyed),
    ]);
    for (let i = 0; i < 9; i++) await photo(petId);
    await expectReplies("addPetPhoto", 409, [() => upload(key, petId, imageOf("image/jpeg"))]);
  });

  it("401 without a key, 403 for another account's animal", async () => {
    const petId = await animal();
    await expectReplies("addPetPhoto", 401, [
      () =>
        api(`/v1/pets/${petId}/photos`, {
          method: "POST",
          body: imageOf("image/jpeg"),
          headers: { "Content-Type": "image/jpeg" },
        }),
    ]);
    await expectReplies("addPetPhoto", 403, [() => upload(otherKey, petId, imageOf("image/jpeg"))]);
  });
});

describe("listPetPhotos and deletePetPhoto", () => {
  it("200 and 304 for the list, 204 for a deletion", async () => {
    const petId = await animal();
    const photoId = await photo(petId);
    const path = `/v1/pets/${petId}/photos`;
    const listed = await api(path, { key });
    const tag = listed.headers.get("ETag") ?? "";
    await contract.check("listPetPhotos", listed);
    await expectReplies("listPetPhotos", 304, [
      () => api(path, { key, headers: { "If-None-Match": tag } }),
    ]);
    await expectReplies("deletePetPhoto", 204, [
      () => api(`${path}/${photoId}`, { method: "DELETE", key }),
    ]);
  });

  it("404 for what is not there, 403 for another account's, 401 without a key", async () => {
    const petId = await animal();
    const photoId = await photo(petId);
    await expectReplies("listPetPhotos", 404, [
      () => api("/v1/pets/9007199254740991/photos", { key }),
    ]);
    await expectReplies("deletePetPhoto", 404, [
      () => api(`/v1/pets/${petId}/photos/AAAAAAAAAAAAAAAAAAAAAA`, { method: "DELETE", key }),
      () => api(`/v1/pets/${petId}/photos/nope`, { method: "DELETE", key }),
    ]);
    await expectReplies("deletePetPhoto", 403, [
      () => api(`/v1/pets/${petId}/photos/${photoId}`, { method: "DELETE", key: otherKey }),
    ]);
    await expectReplies("listPetPhotos", 401, [() => api(`/v1/pets/${petId}/photos`)]);
    await expectReplies("deletePetPhoto", 401, [
      () => api(`/v1/pets/${petId}/photos/${photoId}`, { method: "DELETE" }),
    ]);
  });
});

describe("429 and 503 for every operation of photos", () => {
  const requests = (petId: number, photoId: string): [string, string, ApiRequestInit][] => [
    [
      "addPetPhoto",
      `/v1/pets/${petId}/photos`,
      { method: "POST", body: imageOf("image/jpeg"), headers: { "Content-Type": "image/jpeg" } },
    ],
    ["listPetPhotos", `/v1/pets/${petId}/photos`, {}],
    ["deletePetPhoto", `/v1/pets/${petId}/photos/${photoId}`, { method: "DELETE" }],
  ];

  it("answers 429 once a tiny Enterprise budget is spent", MANY_REQUESTS, async () => {
    const petId = await animal();
    for (const [operationId, path, init] of requests(petId, await photo(petId))) {
      const tiny = (await seedKey({ plan: "enterprise", limits: { perMinute: 1, perDay: 1 } })).key;
      await (await api("/v1/pets?limit=1", { key: tiny })).arrayBuffer();
      await expectReplies(operationId, 429, [() => api(path, { ...init, key: tiny })]);
    }
  });

  it(
    "answers 503 for a failing D1 and a failing rate limiter, and an upload for a failing bucket",
    MANY_REQUESTS,
    async () => {
      const petId = await animal();
      for (const [operationId, path, init] of requests(petId, await photo(petId))) {
        for (const replaced of [{ DB: failingD1() }, { RATE_LIMITER: failingLimiter() }]) {
          await expectReplies(operationId, 503, [
            () => api(path, { ...init, key, bindings: replaced }),
          ]);
        }
      }
      await expectReplies("addPetPhoto", 503, [
        () =>
          upload(key, petId, imageOf("image/jpeg"), "image/jpeg", {
            bindings: { PHOTOS: failingR2() },
          }),
      ]);
      expect(logs.lines.length).toBeGreaterThan(0);
    },
  );
});
