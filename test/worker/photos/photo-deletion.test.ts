import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { createPet, expectError, freshIp, listedPet } from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import { addPhoto, hasObject, photoRow, photoRowsOf, publicStatus } from "../support/photos.ts";
import { api, jsonOf, send } from "../support/request.ts";

let key: string;
let otherKey: string;

beforeAll(async () => {
  ({ key } = await seedKey());
  ({ key: otherKey } = await seedKey());
});

function removePhoto(petId: number, photoId: string, init: { key?: string } = {}) {
  return api(`/v1/pets/${petId}/photos/${photoId}`, { method: "DELETE", key, ...init });
}

describe("DELETE /v1/pets/{petId}/photos/{photoId} — happy path", () => {
  it("answers 204; the url is 404 from then on, the object and row are gone, the etag moves and pet.updated says photoUrls", async () => {
    const pet = await createPet(key, { name: "Camera shy", categoryId: 1 });
    const kept = await addPhoto(key, pet.id);
    const gone = await addPhoto(key, pet.id, "image/webp");
    expect(await publicStatus(gone.url)).toBe(200);
    const res = await removePhoto(pet.id, gone.id);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe("");
    expect(await publicStatus(gone.url)).toBe(404);
    expect(await hasObject(gone.id)).toBe(false);
    expect(await photoRow(gone.id)).toBeNull();
    const now = await listedPet(key, pet.id);
    expect(now).toEqual({ ...pet, etag: '"4"', photoUrls: [kept.url] });
    expect(await jsonOf(await api(`/v1/pets/${pet.id}/photos`, { key }))).toEqual([kept]);
    const event = await env.DB.prepare(
      "SELECT data, changes FROM events WHERE type = 'pet.updated' AND json_extract(data, '$.id') = ? ORDER BY seq DESC LIMIT 1",
    )
      .bind(pet.id)
      .first<{ data: string; changes: string }>();
    expect(JSON.parse(event?.data ?? "null")).toEqual(now);
    expect(JSON.parse(event?.changes ?? "null")).toEqual(["photoUrls"]);
    // Deleting it again finds nothing; the animal's place for a tenth photo is free again.
    await expectError(await removePhoto(pet.id, gone.id), 404, "not_found");
    expect(await publicStatus(kept.url)).toBe(200);
  });

  it("deletes an animal's photos with it: records and objects, and their urls are 404", async () => {
    const pet = await createPet(key, { name: "Leaving with photos", categoryId: 2 });
    const photos = [await addPhoto(key, pet.id), await addPhoto(key, pet.id, "image/png")];
    const res = await api(`/v1/pets/${pet.id}`, { method: "DELETE", key });
    expect(res.status).toBe(204);
    await res.arrayBuffer();
    for (const photo of photos) {
      expect(await publicStatus(photo.url)).toBe(404);
      expect(await hasObject(photo.id)).toBe(false);
    }
    expect(await photoRowsOf(pet.id)).toEqual([]);
    await expectError(await api(`/v1/pets/${pet.id}/photos`, { key }), 404, "not_found");
  });

  it("keeps an animal's photos when its deletion is refused", async () => {
    const pet = await createPet(key, { name: "Staying", categoryId: 2 });
    const photo = await addPhoto(key, pet.id);
    const refused = await api(`/v1/pets/${pet.id}`, {
      method: "DELETE",
      key,
      headers: { "If-Match": '"1"' },
    });
    await expectError(refused, 412, "precondition_failed");
    await expectError(
      await api(`/v1/pets/${pet.id}`, { method: "DELETE", key: otherKey }),
      403,
      "not_owner",
    );
    expect(await photoRow(photo.id)).toMatchObject({ state: "confirmed" });
    expect(await publicStatus(photo.url)).toBe(200);
  });
});

describe("DELETE /v1/pets/{petId}/photos/{photoId} — bad input", () => {
  it("answers 404 for a photo of another animal, an unknown or malformed id, or an unknown animal", async () => {
    const pet = await createPet(key, { name: "One", categoryId: 3 });
    const other = await createPet(key, { name: "Two", categoryId: 3 });
    const photo = await addPhoto(key, other.id);
    for (const [petId, photoId] of [
      [pet.id, photo.id],
      [pet.id, "AAAAAAAAAAAAAAAAAAAAAA"],
      [pet.id, "not-a-photo"],
      [9007199254740991, photo.id],
      ["abc", photo.id],
    ] as const) {
      const res = await api(`/v1/pets/${petId}/photos/${photoId}`, { method: "DELETE", key });
      await expectError(res, 404, "not_found");
    }
    expect(await photoRow(photo.id)).toMatchObject({ state: "confirmed" });
  });
});

describe("DELETE /v1/pets/{petId}/photos/{photoId} — auth", () => {
  it("refuses another account with 403 not_owner, and the photo stays", async () => {
    const pet = await createPet(key, { name: "Guarded", categoryId: 4 });
    const photo = await addPhoto(key, pet.id);
    await expectError(await removePhoto(pet.id, photo.id, { key: otherKey }), 403, "not_owner");
    expect(await photoRow(photo.id)).toMatchObject({ state: "confirmed" });
    expect(await publicStatus(photo.url)).toBe(200);
    expect((await listedPet(key, pet.id)).etag).toBe('"2"');
  });

  it("asks for a key first", async () => {
    const reply = await send("/v1/pets/1/photos/AAAAAAAAAAAAAAAAAAAAAA", {
      method: "DELETE",
      headers: { "CF-Connecting-IP": freshIp() },
    });
    expect(reply.status).toBe(401);
  });
});
