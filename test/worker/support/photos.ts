import { env } from "cloudflare:test";
import { expect } from "vitest";
import { freshIp } from "./assertions.ts";
import { type ApiRequestInit, api, ORIGIN } from "./request.ts";

export type ImageType = "image/jpeg" | "image/png" | "image/webp";

/** What each format's files begin with (a WebP's four length bytes are zero here). */
const SIGNATURES: Record<ImageType, number[]> = {
  "image/jpeg": [0xff, 0xd8, 0xff, 0xe0],
  "image/png": [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  "image/webp": [0x52, 0x49, 0x46, 0x46, 0, 0, 0, 0, 0x57, 0x45, 0x42, 0x50],
};

/**
 * `size` bytes that begin as a file of `type` does, then a pattern that
 * `seed` varies: the service checks the signature and never decodes, so
 * this is an image as far as it can tell.
 */
export function imageOf(type: ImageType, size = 256, seed = 0): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + seed) % 251;
  bytes.set(SIGNATURES[type].slice(0, size));
  return bytes;
}

export interface PhotoBody {
  id: string;
  url: string;
  contentType: ImageType;
  size: number;
  createdAt: string;
}

/** POST /v1/pets/{petId}/photos with the bytes as they are, sent as `type`; the caller reads the body. */
export function upload(
  key: string,
  petId: number,
  bytes: BodyInit,
  type: string = "image/jpeg",
  init: ApiRequestInit = {},
): Promise<Response> {
  return api(`/v1/pets/${petId}/photos`, {
    ...init,
    method: "POST",
    key,
    body: bytes,
    headers: { "Content-Type": type, ...init.headers },
  });
}

/** Uploads a photo and insists it worked, so arrange steps fail loudly. */
export async function addPhoto(
  key: string,
  petId: number,
  type: ImageType = "image/jpeg",
  size = 256,
): Promise<PhotoBody> {
  const res = await upload(key, petId, imageOf(type, size, petId), type);
  const body = (await res.json()) as PhotoBody;
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body;
}

/** What anyone fetching a photo's address (or its path) gets, without a key: its status. */
export async function publicStatus(url: string): Promise<number> {
  const res = await api(new URL(url, ORIGIN).pathname, {
    headers: { "CF-Connecting-IP": freshIp() },
  });
  await res.arrayBuffer();
  return res.status;
}

/** The photo's row as D1 holds it, if it has one. */
export function photoRow(id: string) {
  return env.DB.prepare("SELECT state, pet_id AS petId, size FROM photos WHERE id = ?")
    .bind(id)
    .first<{ state: string; petId: number; size: number }>();
}

/** Whether the bucket holds an object for the photo. */
export async function hasObject(id: string): Promise<boolean> {
  return (await env.PHOTOS.head(id)) !== null;
}

/** The photos' rows of the animal, in upload order. */
export async function photoRowsOf(petId: number) {
  const { results } = await env.DB.prepare(
    "SELECT id, state FROM photos WHERE pet_id = ? ORDER BY seq",
  )
    .bind(petId)
    .all<{ id: string; state: string }>();
  return results;
}
