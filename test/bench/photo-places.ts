/**
 * The places the photo upload row fills: ten for each animal seeded for it
 * (the most photos one animal may have), handed out in turn across every
 * load of the row, so no upload meets a full animal. Free of any runtime's
 * types: the Node bench, the floor Worker and the Worker tests all read it.
 */

/** The most photos an animal may have. */
const PLACES_PER_ANIMAL = 10;

/** The photo the upload row sends: 200 KiB that begin as a JPEG does (the service never decodes). */
export const BENCH_PHOTO = { type: "image/jpeg", bytes: benchJpeg(200 * 1024) };

function benchJpeg(size: number): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 31) % 251;
  bytes.set([0xff, 0xd8, 0xff, 0xe0]);
  return bytes;
}

export class PhotoPlaces {
  #next = 0;
  readonly #pets: readonly number[];

  constructor(pets: readonly number[]) {
    this.#pets = pets;
  }

  /** The animal the next upload goes to. */
  nextPetId(): number {
    const pet = this.#pets[Math.floor(this.#next / PLACES_PER_ANIMAL)];
    if (pet === undefined) throw new Error("the photo bench ran out of places for photos");
    this.#next += 1;
    return pet;
  }

  /**
   * Most uploads one load may send: each connection may have built its next
   * upload, and have one in flight, beyond the count the load stops at.
   */
  requestBudget(connections: number): number {
    const left = this.#pets.length * PLACES_PER_ANIMAL - this.#next;
    return Math.max(0, left - 2 * connections);
  }
}
