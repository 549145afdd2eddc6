import { afterAll, beforeAll, expect } from "vitest";
import { type SeededKey, seedKey } from "./keys.ts";
import { Contract } from "./openapi-contract.ts";

/** What a sweep's tests work with: the document, a key, and another account's key. */
interface SweepSetup {
  contract: Contract;
  key: string;
  /** The first key as seeded: its hash and its row. */
  seeded: SeededKey;
  otherKey: string;
}

/**
 * The frame of a sweep of `operations`: before its tests, the document
 * loaded and two accounts' keys seeded, handed to `ready`; after them,
 * every reply the document gives those operations produced, but a 500
 * (only a defect produces one; storage faults are 503).
 */
export function sweepFrame(
  operations: readonly string[],
  ready: (setup: SweepSetup) => void | Promise<void>,
): void {
  let contract: Contract;
  beforeAll(async () => {
    contract = await Contract.load();
    const seeded = await seedKey();
    const { key: otherKey } = await seedKey();
    await ready({ contract, key: seeded.key, seeded, otherKey });
  });
  afterAll(() => {
    const notProducible = Object.fromEntries(
      operations.map((operation) => [
        `${operation} 500`,
        "only a defect produces it; storage faults are 503",
      ]),
    );
    const missing = contract.unswept((id) => operations.includes(id), notProducible);
    expect(missing, "documented replies the sweep never produced").toEqual([]);
  });
}
