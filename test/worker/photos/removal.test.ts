import { createScheduledController, env } from "cloudflare:test";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import worker from "../../../src/index.ts";
import { createPet, expectError, listedPet } from "../support/assertions.ts";
import {
  d1FailingAfter,
  d1FailingBatchAt,
  failingR2,
  unlistableR2,
} from "../support/faulty-bindings.ts";
import { seedKey } from "../support/keys.ts";
import { captureLogs } from "../support/logs.ts";
import {
  addPhoto,
  hasObject,
  imageOf,
  photoRow,
  photoRowsOf,
  publicStatus,
  upload,
} from "../support/photos.ts";
import { api } from "../support/request.ts";

/*
 * A photo is written in three steps (a pending row, the object, the row
 * confirmed with the animal's change) and deleted in three (marked, the
 * object, the row). A failure is injected between the steps here; whatever
 * it leaves, the scheduled job deletes, finding its work in D1 alone, and a
 * confirmed photo always keeps its object.
 */

const DAY_MS = 24 * 60 * 60 * 1000;

const logs = captureLogs();

let key: string;

beforeAll(async () => {
  ({ key } = await seedKey());
});

afterEach(() => {
  vi.useRealTimers();
});

/** Runs the scheduled job `later` ms from now, over a bucket that cannot be listed. */
async function runJob(later = 0): Promise<void> {
  if (later > 0) {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + later);
  }
  await worker.scheduled(createScheduledController(), { ...env, PHOTOS: unlistableR2() });
  vi.useRealTimers();
  expect(logs.lines).toContainEqual(
    expect.objectContaining({ message: "scheduled tasks ran", level: "info" }),
  );
}

async function expectUnavailable(res: Response): Promise<void> {
  expect(res.headers.get("Retry-After")).toMatch(/^[1-9][0-9]*$/);
  await expectError(res, 503, "unavailable");
}

describe("an upload that fails between its steps", () => {
  it("whose object cannot be written: 503, the animal unchanged, its row given up and deleted by the job", async () => {
    const pet = await createPet(key, { name: "Unlucky", categoryId: 1 });
    const res = await upload(key, pet.id, imageOf("image/jpeg"), "image/jpeg", {
      bindings: { PHOTOS: failingR2() },
    });
    await expectUnavailable(res);
    expect(await listedPet(key, pet.id)).toEqual(pet);
    const [row] = await photoRowsOf(pet.id);
    expect(row?.state).toBe("deleting");
    await runJob();
    expect(await photoRowsOf(pet.id)).toEqual([]);
    expect(await hasObject(row?.id ?? "")).toBe(false);
  });

  it("whose confirmation fails after its object is written: 503, and the object is deleted at once", async () => {
    const pet = await createPet(key, { name: "Almost", categoryId: 1 });
    // The reservation is two statements, the confirmation more: it breaks at its third.
    const res = await upload(key, pet.id, imageOf("image/png"), "image/png", {
      bindings: { DB: d1FailingBatchAt(2) },
    });
    await expectUnavailable(res);
    expect(await listedPet(key, pet.id)).toEqual(pet);
    expect(await photoRowsOf(pet.id)).toEqual([]);
    const events = await env.DB.prepare(
      "SELECT count(*) AS n FROM events WHERE type = 'pet.updated' AND json_extract(data, '$.id') = ?",
    )
      .bind(pet.id)
      .first<{ n: number }>();
    expect(events?.n).toBe(0);
  });

  it("that dies after writing its object: the job deletes the object a day later, not before", async () => {
    const pet = await createPet(key, { name: "Orphaned", categoryId: 1 });
    // D1 answers the reservation, then nothing more: as if the Worker died after the object.
    const res = await upload(key, pet.id, imageOf("image/webp"), "image/webp", {
      bindings: { DB: d1FailingAfter(1) },
    });
    await expectUnavailable(res);
    const [row] = await photoRowsOf(pet.id);
    if (!row) throw new Error("no pending row was written");
    expect(row.state).toBe("pending");
    expect(await hasObject(row.id)).toBe(true);
    expect(await listedPet(key, pet.id)).toEqual(pet);

    await runJob(DAY_MS - 60_000);
    expect(await photoRow(row.id)).toMatchObject({ state: "pending" });
    expect(await hasObject(row.id)).toBe(true);

    await runJob(DAY_MS + 60_000);
    expect(await photoRow(row.id)).toBeNull();
    expect(await hasObject(row.id)).toBe(false);
    expect(await publicStatus(`/photos/${row.id}`)).toBe(404);
    // Its place among the animal's ten is free again.
    expect((await listedPet(key, pet.id)).photoUrls).toEqual([]);
  });
});

describe("a deletion whose objects cannot be deleted", () => {
  it("of a photo: 204, gone from the animal at once, and the job deletes its object and row", async () => {
    const pet = await createPet(key, { name: "Sticky", categoryId: 2 });
    const kept = await addPhoto(key, pet.id);
    const photo = await addPhoto(key, pet.id, "image/png");
    const res = await api(`/v1/pets/${pet.id}/photos/${photo.id}`, {
      method: "DELETE",
      key,
      bindings: { PHOTOS: failingR2() },
    });
    expect(res.status).toBe(204);
    await res.arrayBuffer();
    expect((await listedPet(key, pet.id)).photoUrls).toEqual([kept.url]);
    expect(await photoRow(photo.id)).toMatchObject({ state: "deleting" });
    expect(logs.lines).toContainEqual(
      expect.objectContaining({
        level: "warn",
        message: "photos left for the scheduled job to delete",
      }),
    );
    await runJob();
    expect(await hasObject(photo.id)).toBe(false);
    expect(await photoRow(photo.id)).toBeNull();
    expect(await publicStatus(photo.url)).toBe(404);
    // The photo the animal kept keeps its object.
    expect(await hasObject(kept.id)).toBe(true);
    expect(await publicStatus(kept.url)).toBe(200);
  });

  it("of an animal: 204, and the job deletes its photos' objects and rows", async () => {
    const pet = await createPet(key, { name: "Departed", categoryId: 2 });
    const photos = [await addPhoto(key, pet.id), await addPhoto(key, pet.id, "image/webp")];
    const res = await api(`/v1/pets/${pet.id}`, {
      method: "DELETE",
      key,
      bindings: { PHOTOS: failingR2() },
    });
    expect(res.status).toBe(204);
    await res.arrayBuffer();
    await expectError(await api(`/v1/pets/${pet.id}/photos`, { key }), 404, "not_found");
    expect((await photoRowsOf(pet.id)).map((row) => row.state)).toEqual(["deleting", "deleting"]);
    await runJob();
    expect(await photoRowsOf(pet.id)).toEqual([]);
    for (const photo of photos) {
      expect(await hasObject(photo.id)).toBe(false);
      expect(await publicStatus(photo.url)).toBe(404);
    }
  });
});

describe("the scheduled job", () => {
  it("never deletes a confirmed photo's object, however old", async () => {
    const pet = await createPet(key, { name: "Old timer", categoryId: 3 });
    const photo = await addPhoto(key, pet.id);
    await runJob(30 * DAY_MS);
    expect(await photoRow(photo.id)).toMatchObject({ state: "confirmed" });
    expect(await hasObject(photo.id)).toBe(true);
    expect((await listedPet(key, pet.id)).photoUrls).toEqual([photo.url]);
  });

  it("retries what it could not delete on its next run", async () => {
    const pet = await createPet(key, { name: "Twice", categoryId: 3 });
    const photo = await addPhoto(key, pet.id);
    const gone = await api(`/v1/pets/${pet.id}/photos/${photo.id}`, {
      method: "DELETE",
      key,
      bindings: { PHOTOS: failingR2() },
    });
    expect(gone.status).toBe(204);
    await gone.arrayBuffer();
    await worker.scheduled(createScheduledController(), { ...env, PHOTOS: failingR2() });
    expect(logs.lines).toContainEqual(
      expect.objectContaining({ message: "scheduled tasks ran", photosRemoved: "failed" }),
    );
    expect(await photoRow(photo.id)).toMatchObject({ state: "deleting" });
    expect(await hasObject(photo.id)).toBe(true);
    await runJob();
    expect(await photoRow(photo.id)).toBeNull();
    expect(await hasObject(photo.id)).toBe(false);
  });
});
