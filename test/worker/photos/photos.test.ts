import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it, vi } from "vitest";
import {
  type CreatedPet,
  createPet,
  expectError,
  freshIp,
  listedPet,
} from "../support/assertions.ts";
import { cutShort, streamOf } from "../support/bodies.ts";
import { seedKey } from "../support/keys.ts";
import {
  addPhoto,
  imageOf,
  type PhotoBody,
  photoRow,
  photoRowsOf,
  upload,
} from "../support/photos.ts";
import { api, jsonOf, ORIGIN, send } from "../support/request.ts";

const MAX_BYTES = 5 * 1024 * 1024;
const PHOTO_ID = /^[A-Za-z0-9_-]{22}$/;

let key: string;
let otherKey: string;

beforeAll(async () => {
  ({ key } = await seedKey());
  ({ key: otherKey } = await seedKey());
});

function listed(petId: number, init: { key?: string } = {}): Promise<Response> {
  return api(`/v1/pets/${petId}/photos`, { key, ...init });
}

async function eventsOf(petId: number) {
  const { results } = await env.DB.prepare(
    "SELECT type, data, changes FROM events WHERE json_extract(data, '$.id') = ? AND type LIKE 'pet.%' ORDER BY seq",
  )
    .bind(petId)
    .all<{ type: string; data: string; changes: string | null }>();
  return results.map(({ type, data, changes }) => ({
    type,
    data: JSON.parse(data) as CreatedPet,
    changes: changes === null ? null : (JSON.parse(changes) as string[]),
  }));
}

describe("POST /v1/pets/{petId}/photos — happy path", () => {
  it.each([["image/jpeg"], ["image/png"], ["image/webp"]] as const)(
    "takes a %s, answers 201 with the Photo and its Location, and stores its bytes",
    async (type) => {
      const pet = await createPet(key, { name: "Pictured", categoryId: 1 });
      const bytes = imageOf(type, 1000, 7);
      const res = await upload(key, pet.id, bytes, type);
      const photo = await jsonOf<PhotoBody>(res);
      expect(res.status).toBe(201);
      expect(Object.keys(photo).sort()).toEqual(["contentType", "createdAt", "id", "size", "url"]);
      expect(photo).toEqual({
        id: expect.stringMatching(PHOTO_ID),
        url: `${ORIGIN}/photos/${photo.id}`,
        contentType: type,
        size: 1000,
        createdAt: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      });
      expect(res.headers.get("Location")).toBe(photo.url);
      expect(res.headers.get("Cache-Control")).toBe("no-store");
      const object = await env.PHOTOS.get(photo.id);
      expect(new Uint8Array((await object?.arrayBuffer()) ?? new ArrayBuffer(0))).toEqual(bytes);
      expect(object?.httpMetadata?.contentType).toBe(type);
      expect(await photoRow(photo.id)).toEqual({ state: "confirmed", petId: pet.id, size: 1000 });
    },
  );

  it("takes a Content-Type with parameters and in any case", async () => {
    const pet = await createPet(key, { name: "Cased", categoryId: 1 });
    const res = await upload(key, pet.id, imageOf("image/png"), "IMAGE/PNG; name=rex");
    expect(res.status).toBe(201);
    expect((await jsonOf<PhotoBody>(res)).contentType).toBe("image/png");
  });

  it("puts its url in the animal's photoUrls, oldest first, with a new etag and pet.updated each time", async () => {
    const pet = await createPet(key, { name: "Album", categoryId: 2 });
    const first = await addPhoto(key, pet.id);
    const second = await addPhoto(key, pet.id, "image/png");
    const now = await listedPet(key, pet.id);
    expect(now).toEqual({ ...pet, etag: '"3"', photoUrls: [first.url, second.url] });
    const fetched = await api(`/v1/pets/${pet.id}`, { key });
    expect(fetched.headers.get("ETag")).toBe('"3"');
    expect(await fetched.json()).toEqual(now);
    expect(await eventsOf(pet.id)).toEqual([
      { type: "pet.created", data: pet, changes: null },
      {
        type: "pet.updated",
        data: { ...pet, etag: '"2"', photoUrls: [first.url] },
        changes: ["photoUrls"],
      },
      { type: "pet.updated", data: now, changes: ["photoUrls"] },
    ]);
  });

  it("lists the animal's photos oldest first, with an ETag to revalidate", async () => {
    const pet = await createPet(key, { name: "Listed", categoryId: 2 });
    const empty = await listed(pet.id);
    expect(empty.status).toBe(200);
    expect(await empty.json()).toEqual([]);
    const photos = [await addPhoto(key, pet.id), await addPhoto(key, pet.id, "image/webp")];
    const res = await listed(pet.id);
    expect(await res.json()).toEqual(photos);
    const tag = res.headers.get("ETag");
    expect(tag).toBeTruthy();
    const again = await listed(pet.id, { key, ...{ headers: { "If-None-Match": tag ?? "" } } });
    expect(again.status).toBe(304);
    await again.arrayBuffer();
  });

  it("takes exactly 5 MiB, with or without Content-Length", async () => {
    const pet = await createPet(key, { name: "Large", categoryId: 3 });
    const bytes = imageOf("image/jpeg", MAX_BYTES);
    const sized = await upload(key, pet.id, bytes);
    expect(sized.status).toBe(201);
    expect((await jsonOf<PhotoBody>(sized)).size).toBe(MAX_BYTES);
    const streamed = await upload(key, pet.id, streamOf(bytes, 64 * 1024));
    expect(streamed.status).toBe(201);
    const photo = await jsonOf<PhotoBody>(streamed);
    expect(photo.size).toBe(MAX_BYTES);
    expect((await env.PHOTOS.head(photo.id))?.size).toBe(MAX_BYTES);
  });

  it("replays an upload sent again with its Idempotency-Key, and adds nothing", async () => {
    const pet = await createPet(key, { name: "Retried", categoryId: 3 });
    const bytes = imageOf("image/png", 500, 1);
    const headers = { "Idempotency-Key": `photo-${pet.id}` };
    const first = await upload(key, pet.id, bytes, "image/png", { headers });
    const photo = await jsonOf<PhotoBody>(first);
    expect(first.status).toBe(201);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();
    const again = await upload(key, pet.id, bytes, "image/png", { headers });
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.headers.get("Location")).toBe(photo.url);
    expect(await again.json()).toEqual(photo);
    expect((await listedPet(key, pet.id)).photoUrls).toEqual([photo.url]);
    const { n } = (await env.DB.prepare("SELECT count(*) AS n FROM photos WHERE pet_id = ?")
      .bind(pet.id)
      .first<{ n: number }>()) ?? { n: -1 };
    expect(n).toBe(1);
    // Other bytes, another type or another animal with the same key: 422, and nothing added.
    const other = await createPet(key, { name: "Other", categoryId: 3 });
    for (const [id, body, type] of [
      [pet.id, imageOf("image/png", 500, 2), "image/png"],
      [pet.id, imageOf("image/jpeg", 500, 1), "image/jpeg"],
      [other.id, bytes, "image/png"],
    ] as const) {
      await expectError(
        await upload(key, id, body, type, { headers }),
        422,
        "idempotency_key_reused",
      );
    }
    expect((await listedPet(key, other.id)).photoUrls).toEqual([]);
  });

  it("adds one photo from concurrent uploads with one Idempotency-Key, and leaves no other behind", async () => {
    const pet = await createPet(key, { name: "Burst", categoryId: 4 });
    const bytes = imageOf("image/jpeg", 2000, 3);
    const headers = { "Idempotency-Key": `burst-${pet.id}` };
    const replies = await Promise.all(
      Array.from({ length: 6 }, () => upload(key, pet.id, bytes, "image/jpeg", { headers })),
    );
    const bodies = await Promise.all(replies.map((res) => jsonOf<PhotoBody>(res)));
    expect(replies.map((res) => res.status)).toEqual(Array(6).fill(201));
    const [photo] = bodies;
    for (const body of bodies) expect(body).toEqual(photo);
    expect((await listedPet(key, pet.id)).photoUrls).toEqual([photo?.url]);
    expect(await photoRowsOf(pet.id)).toEqual([{ id: photo?.id, state: "confirmed" }]);
  });

  it("replays an animal's tenth photo rather than refusing it for the limit", async () => {
    const pet = await createPet(key, { name: "Full house", categoryId: 4 });
    for (let i = 0; i < 9; i++) await addPhoto(key, pet.id);
    const headers = { "Idempotency-Key": `tenth-${pet.id}` };
    const tenth = await upload(key, pet.id, imageOf("image/jpeg", 300, 10), "image/jpeg", {
      headers,
    });
    expect(tenth.status).toBe(201);
    const again = await upload(key, pet.id, imageOf("image/jpeg", 300, 10), "image/jpeg", {
      headers,
    });
    expect(again.status).toBe(201);
    expect(await again.json()).toEqual(await tenth.json());
  });
});

describe("POST /v1/pets/{petId}/photos — bad input", () => {
  it.each([
    ["a PNG sent as JPEG", imageOf("image/png"), "image/jpeg"],
    ["a JPEG sent as WebP", imageOf("image/jpeg"), "image/webp"],
    [
      "a RIFF file that is not WebP",
      new TextEncoder().encode("RIFF\0\0\0\0WAVEfmt "),
      "image/webp",
    ],
    ["an empty body", new Uint8Array(0), "image/png"],
    ["two bytes of JPEG", new Uint8Array([0xff, 0xd8]), "image/jpeg"],
  ])("refuses %s with 415, and adds nothing", async (_case, bytes, type) => {
    const pet = await createPet(key, { name: "Unpictured", categoryId: 1 });
    const error = await expectError(
      await upload(key, pet.id, bytes, type),
      415,
      "unsupported_media_type",
    );
    expect(error.message).toContain(type);
    expect(await listedPet(key, pet.id)).toEqual(pet);
  });

  it.each(["image/gif", "application/octet-stream", "application/json", "image/svg+xml"])(
    "refuses Content-Type %s with 415 naming the three types",
    async (type) => {
      const pet = await createPet(key, { name: "Wrong type", categoryId: 1 });
      const error = await expectError(
        await upload(key, pet.id, imageOf("image/png"), type),
        415,
        "unsupported_media_type",
      );
      expect(error.message).toBe(
        "Send the body with Content-Type: image/jpeg or image/png or image/webp.",
      );
    },
  );

  it("refuses one byte over 5 MiB with 413 naming 5 MiB: before reading when Content-Length says so, and without it", async () => {
    const pet = await createPet(key, { name: "Too large", categoryId: 1 });
    const bytes = imageOf("image/jpeg", MAX_BYTES + 1);
    const sized = await expectError(await upload(key, pet.id, bytes), 413, "payload_too_large");
    expect(sized.message).toBe("The request body is larger than 5 MiB.");
    const streamed = await expectError(
      await upload(key, pet.id, streamOf(bytes, 64 * 1024)),
      413,
      "payload_too_large",
    );
    expect(streamed.message).toBe("The request body is larger than 5 MiB.");
    // A Content-Length over the limit is refused before a byte is read: the body need not even arrive.
    const promised = await expectError(
      await upload(key, pet.id, cutShort(imageOf("image/jpeg", 10), MAX_BYTES + 1)),
      413,
      "payload_too_large",
    );
    expect(promised.message).toBe("The request body is larger than 5 MiB.");
    expect(await listedPet(key, pet.id)).toEqual(pet);
  });

  it("answers a body shorter than its Content-Length with 400, logging nothing at error level", async () => {
    const pet = await createPet(key, { name: "Cut short", categoryId: 1 });
    const errors = vi.spyOn(console, "error");
    const res = await upload(key, pet.id, cutShort(imageOf("image/jpeg", 100), 5000));
    const error = await expectError(res, 400, "invalid_request");
    expect(error.message).toBe(
      "The request body ended before all of it arrived; send it again, whole.",
    );
    expect(errors).not.toHaveBeenCalled();
    errors.mockRestore();
    expect(await listedPet(key, pet.id)).toEqual(pet);
  });

  it("refuses the 11th photo with 409 limit_reached, and keeps ten, oldest first", async () => {
    const pet = await createPet(key, { name: "Ten", categoryId: 5 });
    const photos: PhotoBody[] = [];
    for (let i = 0; i < 10; i++) photos.push(await addPhoto(key, pet.id));
    const error = await expectError(
      await upload(key, pet.id, imageOf("image/jpeg")),
      409,
      "limit_reached",
    );
    expect(error.message).toBe(
      "This animal already has 10 photos, the most it may have; delete one first.",
    );
    expect((await listedPet(key, pet.id)).photoUrls).toEqual(photos.map((photo) => photo.url));
    expect(await jsonOf(await listed(pet.id))).toEqual(photos);
  });

  it.each(["9007199254740991", "0", "abc"])("answers 404 for the animal %s", async (id) => {
    const res = await api(`/v1/pets/${id}/photos`, {
      method: "POST",
      key,
      body: imageOf("image/jpeg"),
      headers: { "Content-Type": "image/jpeg" },
    });
    await expectError(res, 404, "not_found");
    await expectError(await api(`/v1/pets/${id}/photos`, { key }), 404, "not_found");
  });

  it("answers 404 for a deleted animal", async () => {
    const pet = await createPet(key, { name: "Gone", categoryId: 1 });
    await (await api(`/v1/pets/${pet.id}`, { method: "DELETE", key })).arrayBuffer();
    await expectError(await upload(key, pet.id, imageOf("image/jpeg")), 404, "not_found");
    await expectError(await listed(pet.id), 404, "not_found");
  });
});

describe("POST /v1/pets/{petId}/photos — auth", () => {
  it("refuses another account's upload with 403 not_owner; any key may list", async () => {
    const pet = await createPet(key, { name: "Mine", categoryId: 1 });
    const photo = await addPhoto(key, pet.id);
    const res = await upload(otherKey, pet.id, imageOf("image/jpeg"));
    const error = await expectError(res, 403, "not_owner");
    expect(error.message).toBe(
      "This animal belongs to another account; only that account's keys may change it.",
    );
    expect(await jsonOf(await listed(pet.id, { key: otherKey }))).toEqual([photo]);
    expect((await listedPet(key, pet.id)).photoUrls).toEqual([photo.url]);
  });

  it("asks for a key first", async () => {
    const reply = await send("/v1/pets/1/photos", {
      method: "POST",
      body: imageOf("image/jpeg"),
      headers: { "Content-Type": "image/jpeg", "CF-Connecting-IP": freshIp() },
    });
    expect(reply.status).toBe(401);
  });
});
