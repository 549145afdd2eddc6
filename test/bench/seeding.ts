import type { Caller } from "./callers.ts";
import { freshName } from "./catalogue-rows.ts";
import type { FlowContext, FlowStep, Send } from "./flows.ts";
import { BENCH_PHOTO, PhotoPlaces } from "./photo-places.ts";
import type { Seeded } from "./row-kinds.ts";
import { HOOK_TYPES, newPetBody } from "./rows.ts";
import type { AnimalWalks } from "./seeded-animals.ts";

/**
 * What the rows work on, made through each server's own routes (the API's
 * with the caller's key, so this also proves auth and the limiter admit it;
 * the floor's as its floors), in the same order on both. Free of any
 * runtime's types: the Node bench and the Worker tests both run it, each
 * with its own way to send a request.
 */

export interface SeedCounts {
  pets: number;
  orders: number;
  /** The shopper's animals to rename, and categories: twice a load's connections, so they seldom meet on one. */
  editable: number;
  categories: number;
  /** Animals with room for ten photos each, for the upload row. */
  photoPets: number;
}

/**
 * What the bench seeds: a page's worth of most things, animals enough to
 * walk through, records to rename, and animals with room for photos.
 */
export const BENCH_SEED: SeedCounts = {
  pets: 500,
  orders: 20,
  editable: 32,
  categories: 32,
  photoPets: 500,
};

/** The photos of the album, the animal the photo reads work on. */
const ALBUM_PHOTOS = 3;

/** Requests sent at once while seeding. */
const PARALLEL = 8;

async function sendChecked(
  send: Send,
  request: Parameters<Send>[0],
  expected: number,
): Promise<string> {
  const { status, body } = await send(request);
  if (status !== expected) {
    throw new Error(
      `${request.method} ${request.path} answered ${status}, not ${expected}: ${body.slice(0, 300)}`,
    );
  }
  return body;
}

/** Sends `count` requests a few at a time and keeps each created thing's id, in the order sent. */
async function make(
  send: Send,
  count: number,
  request: (index: number) => Parameters<Send>[0],
  expected: number,
): Promise<number[]> {
  const ids: number[] = [];
  let next = 0;
  const worker = async () => {
    for (let index = next++; index < count; index = next++) {
      const body = await sendChecked(send, request(index), expected);
      ids[index] = (JSON.parse(body) as { id: number }).id;
    }
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
  return ids;
}

/** Adds `count` animals as the shopper, a few at a time; their ids, in the order sent. */
export function seedPets(send: Send, count: number): Promise<number[]> {
  return make(
    send,
    count,
    (index) => ({ caller: "shopper", method: "POST", path: "/v1/pets", body: newPetBody(index) }),
    201,
  );
}

/**
 * Seeds one server: animals, the shopper's animals to rename and
 * categories, the shopper's orders (of animals the walk hands out), the
 * hooks account's two endpoints at `hookUrl`, a test delivery to the first,
 * an animal with a few photos, and animals with room for the upload row's.
 */
export async function seed(
  send: Send,
  counts: SeedCounts,
  walks: AnimalWalks,
  hookUrl: string,
): Promise<Seeded> {
  const pets = await seedPets(send, counts.pets);
  const shopper = (path: string, body: () => string) => () =>
    ({ caller: "shopper", method: "POST", path, body: body() }) as const;
  const editable = await make(
    send,
    counts.editable,
    shopper("/v1/pets", () => JSON.stringify({ name: freshName("Editable"), categoryId: 1 })),
    201,
  );
  const categories = await make(
    send,
    counts.categories,
    shopper("/v1/categories", () => JSON.stringify({ name: freshName("Bench kind") })),
    201,
  );
  const petIds = Array.from({ length: counts.orders }, () => walks.adoptable.nextPetId());
  const orders = await make(
    send,
    counts.orders,
    (index) => ({
      caller: "shopper",
      method: "POST",
      path: "/v1/store/orders",
      body: JSON.stringify({ petId: petIds[index] }),
    }),
    201,
  );
  const webhooks = await make(
    send,
    2,
    () => ({
      caller: "hooks",
      method: "POST",
      path: "/v1/webhooks",
      body: JSON.stringify({ url: hookUrl, types: HOOK_TYPES }),
    }),
    201,
  );
  const deliveries = await make(
    send,
    1,
    () => ({ caller: "hooks", method: "POST", path: `/v1/webhooks/${webhooks[0]}/test` }),
    202,
  );
  const [albumPet = 0, ...photoPets] = await seedPets(send, 1 + counts.photoPets);
  const photoIds: string[] = [];
  for (let photo = 0; photo < ALBUM_PHOTOS; photo++) {
    const request = { path: `/v1/pets/${albumPet}/photos`, body: BENCH_PHOTO };
    const body = await sendChecked(send, { caller: "shopper", method: "POST", ...request }, 201);
    photoIds.push((JSON.parse(body) as { id: string }).id);
  }
  return {
    pets,
    editable,
    categories,
    orders,
    webhooks,
    deliveries,
    ...walks,
    album: { petId: albumPet, photoIds },
    photoPlaces: new PhotoPlaces(photoPets),
  };
}

/** One request of a unit as sent, with its answer. */
export interface Exchange {
  method: string;
  path: string;
  status: number;
  body: string;
}

/** Sends one unit of a row's flow, step after step; each answer's status must be the step's. */
export async function sendUnit(
  send: Send,
  caller: Caller,
  steps: readonly FlowStep[],
): Promise<Exchange[]> {
  const context: FlowContext = {};
  const exchanges: Exchange[] = [];
  for (const step of steps) {
    const request = { caller, method: step.method, ...step.request(context) };
    const body = await sendChecked(send, request, step.expectStatus);
    exchanges.push({ method: step.method, path: request.path, status: step.expectStatus, body });
    step.read?.(body, context);
  }
  return exchanges;
}
