import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { messages } from "../../../src/errors.ts";
import { createPet } from "../support/assertions.ts";
import { seedKey } from "../support/keys.ts";
import {
  expectAnimalsMatchOrders,
  type OrderStatus,
  type PetStatus,
  storedOrders,
  storedPetStatus,
} from "../support/orders.ts";
import { runs as propertyRuns, seed } from "../support/property.ts";
import { type Reply, send } from "../support/request.ts";

// Each run is a sequence of dozens of requests, so this property tries a fifth of RUNS.
const numRuns = Math.max(1, Math.round(propertyRuns / 5));
const ANIMALS = 3;
const MAX_COMMANDS = 25;
// Hundreds of runs (RUNS= in the thousands) take far beyond the default timeout.
const TIMEOUT_MS = 300_000;

type Account = 0 | 1;

/** What the API should hold: each animal's status, and every order of this run. */
interface Model {
  pets: PetStatus[];
  orders: { id: number; animal: number; owner: Account; status: OrderStatus }[];
}

/** The run's animals, as the API numbered them. */
interface Real {
  petIds: number[];
}

const keys: string[] = [];
const accountIds: number[] = [];
let steps = 0;

beforeAll(async () => {
  for (let i = 0; i < 2; i++) {
    const seeded = await seedKey({ plan: "enterprise", limits: { perMinute: 1e9, perDay: 1e9 } });
    keys.push(seeded.key);
    accountIds.push(seeded.row.accountId);
  }
});

const keyOf = (account: Account) => keys[account] ?? "";

/**
 * After every step: the stores hold exactly what the model says, and every
 * animal's status matches its orders (one placed order per pending animal,
 * none for an available one, exactly one completed for a sold one).
 */
async function expectAgreement(model: Model, real: Real): Promise<void> {
  steps += 1;
  for (const [animal, petId] of real.petIds.entries()) {
    expect(await storedPetStatus(petId), `animal ${animal}`).toBe(model.pets[animal]);
  }
  const stored = await storedOrders(real.petIds);
  expect(
    stored.map((order) => ({
      id: order.id,
      animal: real.petIds.indexOf(order.petId),
      owner: accountIds.indexOf(order.accountId),
      status: order.status,
    })),
  ).toEqual(model.orders);
  await expectAnimalsMatchOrders(real.petIds);
}

function placeRequest(account: Account, petId: number | undefined): Promise<Reply> {
  return send("/v1/store/orders", { method: "POST", key: keyOf(account), json: { petId } });
}

function moveRequest(account: Account, orderId: number, action: Action): Promise<Reply> {
  return send(`/v1/store/orders/${orderId}/${action}`, { method: "POST", key: keyOf(account) });
}

type Action = "complete" | "cancel";
const MOVED = { complete: "completed", cancel: "cancelled" } as const;
const ANIMAL_AFTER = { complete: "sold", cancel: "available" } as const;

/** Checks a refusal of placing an order for an animal the model says is not available. */
function expectPetNotAvailable(reply: Reply, status: PetStatus | undefined): void {
  expect(reply.status).toBe(409);
  expect(reply.body).toMatchObject({
    code: "pet_not_available",
    message: messages.petNotAvailable(status ?? "?"),
  });
}

class Place implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly account: Account,
    readonly animal: number,
  ) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    const petId = real.petIds[this.animal];
    const reply = await placeRequest(this.account, petId);
    if (model.pets[this.animal] === "available") {
      expect(reply.status, JSON.stringify(reply.body)).toBe(201);
      expect(reply.body).toMatchObject({ petId, status: "placed" });
      model.pets[this.animal] = "pending";
      const id = reply.body.id as number;
      model.orders.push({ id, animal: this.animal, owner: this.account, status: "placed" });
    } else {
      expectPetNotAvailable(reply, model.pets[this.animal]);
    }
    await expectAgreement(model, real);
  }
  toString(): string {
    return `place(account ${this.account}, animal ${this.animal})`;
  }
}

/** Both accounts order one animal at once: at most one of them gets it. */
class PlaceRace implements fc.AsyncCommand<Model, Real> {
  constructor(readonly animal: number) {}
  check(): boolean {
    return true;
  }
  async run(model: Model, real: Real): Promise<void> {
    const petId = real.petIds[this.animal];
    const replies = await Promise.all([placeRequest(0, petId), placeRequest(1, petId)]);
    if (model.pets[this.animal] === "available") {
      expect(replies.map((reply) => reply.status).sort()).toEqual([201, 409]);
      const winner = replies.findIndex((reply) => reply.status === 201) as Account;
      const loser = replies[1 - winner];
      if (loser) expectPetNotAvailable(loser, "pending");
      model.pets[this.animal] = "pending";
      const id = replies[winner]?.body.id as number;
      model.orders.push({ id, animal: this.animal, owner: winner, status: "placed" });
    } else {
      for (const reply of replies) expectPetNotAvailable(reply, model.pets[this.animal]);
    }
    await expectAgreement(model, real);
  }
  toString(): string {
    return `placeRace(animal ${this.animal})`;
  }
}

/** What the model expects of a move of this order by this account, before it happens. */
function expectedMove(model: Model, index: number, account: Account) {
  const order = model.orders[index];
  if (!order) throw new Error("no such order in the model");
  if (order.owner !== account) return { order, refusal: 404 } as const;
  if (order.status !== "placed") return { order, refusal: 409 } as const;
  return { order, refusal: undefined };
}

function expectRefusal(reply: Reply, refusal: 404 | 409, status: OrderStatus, action: Action) {
  expect(reply.status).toBe(refusal);
  if (refusal === 404) expect(reply.body.code).toBe("not_found");
  else
    expect(reply.body).toMatchObject({
      code: "invalid_transition",
      message: messages.invalidTransition(status, MOVED[action]),
    });
}

class Move implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly action: Action,
    readonly account: Account,
    readonly pick: number,
  ) {}
  check(model: Readonly<Model>): boolean {
    return model.orders.length > 0;
  }
  async run(model: Model, real: Real): Promise<void> {
    const index = this.pick % model.orders.length;
    const { order, refusal } = expectedMove(model, index, this.account);
    const reply = await moveRequest(this.account, order.id, this.action);
    if (refusal) {
      expectRefusal(reply, refusal, order.status, this.action);
    } else {
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expect(reply.body).toMatchObject({ id: order.id, status: MOVED[this.action] });
      order.status = MOVED[this.action];
      model.pets[order.animal] = ANIMAL_AFTER[this.action];
    }
    await expectAgreement(model, real);
  }
  toString(): string {
    return `${this.action}(account ${this.account}, order #${this.pick})`;
  }
}

/** A complete and a cancel of one order at once: at most one of them moves it. */
class MoveRace implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly account: Account,
    readonly pick: number,
  ) {}
  check(model: Readonly<Model>): boolean {
    return model.orders.length > 0;
  }
  async run(model: Model, real: Real): Promise<void> {
    const index = this.pick % model.orders.length;
    const { order, refusal } = expectedMove(model, index, this.account);
    const actions = ["complete", "cancel"] as const;
    const replies = await Promise.all(
      actions.map((action) => moveRequest(this.account, order.id, action)),
    );
    if (refusal) {
      replies.forEach((reply, i) => {
        expectRefusal(reply, refusal, order.status, actions[i] ?? "complete");
      });
    } else {
      expect(replies.map((reply) => reply.status).sort()).toEqual([200, 409]);
      const won = actions[replies.findIndex((reply) => reply.status === 200)] ?? "complete";
      const lost = won === "complete" ? "cancel" : "complete";
      const loser = replies[actions.indexOf(lost)];
      if (loser) expectRefusal(loser, 409, MOVED[won], lost);
      order.status = MOVED[won];
      model.pets[order.animal] = ANIMAL_AFTER[won];
    }
    await expectAgreement(model, real);
  }
  toString(): string {
    return `completeRaceCancel(account ${this.account}, order #${this.pick})`;
  }
}

const account = fc.constantFrom<Account>(0, 1);
const animal = fc.integer({ min: 0, max: ANIMALS - 1 });
const pick = fc.nat();
const commands = fc.commands(
  [
    fc.tuple(account, animal).map(([who, which]) => new Place(who, which)),
    animal.map((which) => new PlaceRace(which)),
    fc
      .tuple(fc.constantFrom<Action>("complete", "cancel"), account, pick)
      .map(([action, who, which]) => new Move(action, who, which)),
    fc.tuple(account, pick).map(([who, which]) => new MoveRace(who, which)),
  ],
  { maxCommands: MAX_COMMANDS, size: "max" },
);

describe(`orders and animals agree (seed ${seed}, ${numRuns} runs)`, () => {
  it("after every step of random orders, completes and cancels by two accounts", {
    timeout: TIMEOUT_MS,
  }, async () => {
    let runs = 0;
    await fc
      .assert(
        fc.asyncProperty(commands, async (sequence) => {
          runs += 1;
          const petIds: number[] = [];
          for (let i = 0; i < ANIMALS; i++) {
            petIds.push((await createPet(keyOf(0), { name: `Model ${i}`, categoryId: 4 })).id);
          }
          const setup = async () => ({
            model: { pets: petIds.map((): PetStatus => "available"), orders: [] },
            real: { petIds },
          });
          await fc.asyncModelRun(setup, sequence);
        }),
        { seed, numRuns },
      )
      .catch((error: unknown) => {
        throw new Error(`the orders property failed with seed ${seed}: ${String(error)}`);
      });
    expect(runs).toBeGreaterThanOrEqual(numRuns);
    console.log(`orders property: ${runs} runs, ${steps} steps checked (seed ${seed})`);
  });
});
