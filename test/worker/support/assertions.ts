import { expect } from "vitest";
import type { ErrorBody } from "../../../src/errors.ts";
import { api } from "./request.ts";

/**
 * Text that would betray internals: stack frames, storage and binding names,
 * libraries, raw exception names. Upper-case names are matched as whole words
 * so ordinary English ("valid", "added") cannot trip them.
 */
const LEAKS: readonly RegExp[] = [
  /\bat\s+\S+\s+\(|\n\s+at\s/, // stack frames
  /\.(?:ts|js|mjs):\d+/, // source positions
  /\bSQL/i,
  /sqlite/i,
  /\bD1\b/,
  /\bDB\b/,
  /\bKV\b/,
  /API_KEYS/,
  /RATE_LIMITER/,
  /\bR2\b/,
  /PHOTOS/,
  /Durable ?Object/i,
  /drizzle/i,
  /\bzod/i,
  /\bhono\b/i,
  /workerd/i,
  /node_modules/,
  /Error:/,
  /\b(?:Type|Reference|Syntax|Range)Error\b/,
  /HTTPException/,
  /\[object /,
];

/** A request id the Worker made itself: a version 4 UUID. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** The limiter's headers, on every reply it answered. */
export const RATE_LIMIT_HEADERS = [
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "RateLimit-Policy",
  "RateLimit",
];

/** Fails when any text a client can read would reveal how the service is built. */
export function expectNoLeaks(text: string): void {
  for (const leak of LEAKS) expect(text, `leaks ${leak}`).not.toMatch(leak);
}

interface ExpectErrorOptions {
  /** The `details[].path` values expected, in order; omit for errors that carry no details. */
  paths?: string[];
}

/**
 * Consumes the body and checks the one Error shape: JSON, exactly
 * {code, message, status} (plus details only for validation failures),
 * the status echoed, and nothing internal in any text.
 */
export async function expectError(
  res: Response,
  status: number,
  code: ErrorBody["code"],
  options: ExpectErrorOptions = {},
): Promise<ErrorBody> {
  const text = await res.text();
  expect(res.status, text).toBe(status);
  expect(res.headers.get("Content-Type")).toMatch(/^application\/json\b/);
  const body = JSON.parse(text) as ErrorBody;
  const keys = options.paths
    ? ["code", "details", "message", "status"]
    : ["code", "message", "status"];
  expect(Object.keys(body).sort()).toEqual(keys);
  expect(body.code).toBe(code);
  expect(body.status).toBe(status);
  expect(typeof body.message).toBe("string");
  expect(body.message.trim()).not.toBe("");
  if (options.paths) {
    const details = body.details ?? [];
    for (const detail of details) {
      expect(Object.keys(detail).sort()).toEqual(["message", "path"]);
      expect(typeof detail.message).toBe("string");
    }
    expect(details.map((detail) => detail.path)).toEqual(options.paths);
  }
  expectNoLeaks(text);
  for (const [name, value] of res.headers) expectNoLeaks(`${name}: ${value}`);
  // Errors are replies like any other: they keep the headers every reply carries.
  expect(res.headers.get("X-Request-Id")).toBeTruthy();
  expect(res.headers.get("X-Content-Type-Options")).toBe("nosniff");
  return body;
}

export const PET_KEYS = [
  "id",
  "name",
  "categoryId",
  "status",
  "shelterId",
  "breed",
  "age",
  "sex",
  "size",
  "goodWithChildren",
  "goodWithDogs",
  "goodWithCats",
  "houseTrained",
  "specialNeeds",
  "spayedNeutered",
  "description",
  "distanceKm",
  "etag",
  "photoUrls",
];

/** The profile of an animal of which nothing is known, and its distance outside a `near` listing. */
export const UNKNOWN_PROFILE = {
  shelterId: null,
  breed: null,
  age: null,
  sex: null,
  size: null,
  goodWithChildren: null,
  goodWithDogs: null,
  goodWithCats: null,
  houseTrained: null,
  specialNeeds: null,
  spayedNeutered: null,
  description: null,
  distanceKm: null,
};

/** A Pet as the contract promises it: every key in the contract's order, nothing else, well-typed. */
export function expectPet(value: unknown): void {
  expect(value).toBeTypeOf("object");
  const pet = value as Record<string, unknown>;
  expect(Object.keys(pet)).toEqual(PET_KEYS);
  expect(Number.isSafeInteger(pet.id) && (pet.id as number) >= 1).toBe(true);
  expect(typeof pet.name).toBe("string");
  expect(Number.isSafeInteger(pet.categoryId) && (pet.categoryId as number) >= 1).toBe(true);
  expect(["available", "pending", "sold"]).toContain(pet.status);
  expect(pet.etag).toMatch(/^"[1-9][0-9]*"$/);
  expect(pet.photoUrls).toEqual([]);
  expect(pet.distanceKm).toBeNull();
}

export interface CreatedPet {
  id: number;
  name: string;
  categoryId: number;
  status: "available" | "pending" | "sold";
  etag: string;
  photoUrls: string[];
}

/** Adds an animal through the API and insists it worked, so arrange steps fail loudly. */
export async function createPet(
  key: string,
  pet: { name: string; categoryId: number; status?: CreatedPet["status"] },
): Promise<CreatedPet> {
  const res = await api("/v1/pets", { method: "POST", key, json: pet });
  const body = (await res.json()) as CreatedPet;
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body;
}

/** The animal as the listing shows it now (through its `id` filter); fails when it is not listed. */
export async function listedPet(key: string, id: number): Promise<CreatedPet> {
  const res = await api(`/v1/pets?id=${id}`, { key });
  const [pet] = (await res.json()) as CreatedPet[];
  if (!pet) throw new Error(`animal ${id} is not listed`);
  return pet;
}

/**
 * A fresh client address for keyless requests (from the IPv6 documentation
 * range), so each test spends its own per-IP budget of 60 a minute rather
 * than one shared by the whole file.
 */
export function freshIp(): string {
  // Budgets count an IPv6 client by its /64, so the random part is the network's.
  const groups = crypto.getRandomValues(new Uint16Array(2));
  return `2001:db8:${Array.from(groups, (group) => group.toString(16)).join(":")}::1`;
}

export interface CreatedCategory {
  id: number;
  name: string;
  etag: string;
}

/** Adds a category through the API and insists it worked, so arrange steps fail loudly. */
export async function createCategory(key: string, name: string): Promise<CreatedCategory> {
  const res = await api("/v1/categories", { method: "POST", key, json: { name } });
  const body = (await res.json()) as CreatedCategory;
  expect(res.status, JSON.stringify(body)).toBe(201);
  return body;
}
